// The operator layer, as one module (docs/OPERATIONS.md, "Operating accounts"): accounts, API keys, the audit log, the daily quota, the
// API's rate limits and inbound messages no account holds. The pure rules (accountNames.ts: an account's name;
// apiKeySecrets.ts: a key's format and hash), the tables (accountsTable.ts, apiKeysTable.ts, auditEventsTable.ts,
// dailyUsageTable.ts, rateLimitsTable.ts, unroutedMessagesTable.ts), and the services (apiKeyAdmin.ts: keys made
// and revoked, the first start's; keyUsage.ts: when a key was last used; quota.ts: the daily segment quota), and
// the people who sign in (userRoles.ts: roles, pure; usersTable.ts, totpTable.ts; users.ts: invitations and
// sessions; passwords.ts; passwordChange.ts; passwordReset.ts with passwordResetsTable.ts; signInLock.ts; twoFactor.ts).
// This file is the module's only entry (lint: modules-through-their-index). The sending guards the operator
// sets are enforced by the engine where a message is claimed (db/sendingGuards.ts, domain/sendingGuards.ts).
export { hashSecret, parseApiKey, secretHashMatches } from "./apiKeySecrets.js";
export {
  type Account,
  type AccountChange,
  type AccountLimits,
  type AccountRow,
  ensureAccount,
  getAccount,
  insertAccount,
  isAccountNameTaken,
  listAccounts,
  updateAccount,
} from "./accountsTable.js";
export {
  type ApiKeyKind,
  type ApiKeyRow,
  type ApiKeyScope,
  listAccountKeys,
  listApiKeys,
  readActiveApiKey,
  revokeApiKey,
} from "./apiKeysTable.js";
export { deleteOldAuditEvents, insertAuditEvent, listAuditEvents } from "./auditEventsTable.js";
export { deleteOldDailyUsage, readDailyUsage } from "./dailyUsageTable.js";
export { admitApiRequest, chargeBulkRows, chargeSessionRequest, type RateDecision, type RateLimit } from "./rateLimitsTable.js";
export { deleteOldUnroutedMessages, insertUnroutedMessage, listUnroutedMessages } from "./unroutedMessagesTable.js";
export {
  createAccountKey,
  createFirstStartKeys,
  createKeyForAccount,
  createOperatorKey,
  narrowerScope,
  revokeAccountKey,
  revokeKeyByCli,
} from "./apiKeyAdmin.js";
export { KeyUsage } from "./keyUsage.js";
export { chargeQuota, countsQuota } from "./quota.js";
export {
  BIND_STALE_SECONDS,
  deleteSmppBind,
  listSmppCredentials,
  listSmppSessions,
  recordSmppBind,
  refreshSmppBinds,
  type SmppCredentialRow,
  type SmppSessionRow,
} from "./smppCredentialsTable.js";
export {
  addressAllowed,
  changeSmppCredential,
  checkSmppLogin,
  createSmppCredential,
  removeSmppCredential,
  unlockSmppCredentialOf,
} from "./smppCredentialAdmin.js";
export { type AccountRole, isOperatorRole, ROLE_SCOPE, SESSION_IDLE_MS, type UserManager } from "./userRoles.js";
export {
  accountRequiresTwoFactor,
  deleteSession,
  deleteUserSession,
  deleteUserSessions,
  listUsers,
  listUserSessions,
  type SessionRow,
  type UserRow,
} from "./usersTable.js";
export {
  acceptInvitation,
  beginTwoFactor,
  changeUserRole,
  confirmTwoFactor,
  disableTwoFactor,
  invitationUrl,
  inviteFirstStartOwner,
  inviteUser,
  type NewInvitation,
  removeOperatorUser,
  removeUser,
  sessionExpiry,
  sessionOfToken,
  signIn,
} from "./users.js";
export { changeOperatorUserRole } from "./operatorRoles.js";
export { setOperatorTwoFactorRequirement, setTwoFactorRequirement } from "./twoFactorRequirement.js";
export { InvitationMailer } from "./invitationMail.js";
export { changePassword } from "./passwordChange.js";
export {
  confirmPasswordReset,
  issuePasswordReset,
  passwordResetUrl,
  requestPasswordReset,
  RESET_MS,
  type NewPasswordReset,
} from "./passwordReset.js";
