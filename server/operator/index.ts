// The operator layer, as one module (docs/OPERATIONS.md, "Operating accounts"): accounts, API keys, the audit log, the daily quota, the
// API's rate limits and inbound messages no account holds. The pure rules (accountNames.ts: an account's name;
// apiKeySecrets.ts: a key's format and hash), the tables (accountsTable.ts, apiKeysTable.ts, auditEventsTable.ts,
// dailyUsageTable.ts, rateLimitsTable.ts, unroutedMessagesTable.ts), and the services (apiKeyAdmin.ts: keys made
// and revoked, the first start's; keyUsage.ts: when a key was last used; quota.ts: the daily segment quota), and
// the people who sign in (userRoles.ts: roles, pure; usersTable.ts, totpTable.ts; users.ts: invitations and
// sessions; passwords.ts; passwordChange.ts; passwordReset.ts with passwordResetsTable.ts; signInLock.ts; twoFactor.ts).
// This file is the module's only entry (lint: modules-through-their-index). The sending guards the operator
// sets are enforced by the engine where a message is claimed (db/sendingGuards.ts, domain/sendingGuards.ts).
export * from "./accountNames.js";
export * from "./apiKeySecrets.js";
export * from "./accountsTable.js";
export * from "./apiKeysTable.js";
export * from "./auditEventsTable.js";
export * from "./dailyUsageTable.js";
export * from "./rateLimitsTable.js";
export * from "./unroutedMessagesTable.js";
export * from "./apiKeyAdmin.js";
export * from "./keyUsage.js";
export * from "./quota.js";
export * from "./smppCredentialsTable.js";
export * from "./smppCredentialAdmin.js";
export * from "./userRoles.js";
export * from "./usersTable.js";
export * from "./users.js";
export * from "./operatorRoles.js";
export * from "./twoFactorRequirement.js";
export * from "./invitationMail.js";
export { changePassword } from "./passwordChange.js";
export {
  confirmPasswordReset,
  issuePasswordReset,
  passwordResetUrl,
  requestPasswordReset,
  RESET_MS,
  type NewPasswordReset,
} from "./passwordReset.js";
