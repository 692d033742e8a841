// Invitations and password reset links by mail where SMTP_URL is set (docs/USERS.md, "Invitations",
// "Passwords"), through nodemailer. The answer to the invite already holds the link, so a mail that cannot be
// sent is logged (never with its link: the link is a password-setting secret) and the invitation stands; the
// inviter can pass the link on by hand. A reset link is only ever mailed (or issued by an owner or an admin).
import { createTransport, type Transporter } from "nodemailer";
import type { Logger } from "pino";

export interface InvitationMail {
  to: string;
  role: string;
  /** The account's name; undefined for an operator user. */
  accountName: string | undefined;
  link: string;
  expiresAt: Date;
}

export class InvitationMailer {
  private readonly transport: Transporter;

  /** `smtpUrl`: `smtp://user:pass@host:587` or `smtps://…:465` (nodemailer's connection URL). */
  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = createTransport(smtpUrl);
  }

  /** Sends the invitation; resolves whether it was handed to the SMTP server. */
  async send(mail: InvitationMail): Promise<boolean> {
    const where =
      mail.accountName === undefined ? "the operator console of SMS Platform" : `the account "${mail.accountName}" on SMS Platform`;
    const text = [
      `You are invited to ${where} as ${mail.role}.`,
      "",
      "Open this link to choose your password (it works once, until " + mail.expiresAt.toISOString() + "):",
      "",
      mail.link,
      "",
      "If you did not expect this invitation, ignore this mail: nothing happens until the link is opened.",
    ].join("\n");
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: `Your invitation to ${where}`, text });
      this.log.info({ to: mail.to }, "invitation mailed");
      return true;
    } catch (error) {
      this.log.warn({ to: mail.to, err: { message: (error as Error).message } }, "invitation not mailed: SMTP refused or unreachable");
      return false;
    }
  }

  /** Sends a password reset link; resolves whether it was handed to the SMTP server. */
  async sendPasswordReset(mail: { to: string; link: string; expiresAt: Date }): Promise<boolean> {
    const text = [
      "Someone asked to set a new password for this address on SMS Platform.",
      "",
      "Open this link to choose one (it works once, until " + mail.expiresAt.toISOString() + "):",
      "",
      mail.link,
      "",
      "If it was not you, ignore this mail: your password stays as it is.",
    ].join("\n");
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: "Set a new password for SMS Platform", text });
      this.log.info({ to: mail.to }, "password reset link mailed");
      return true;
    } catch (error) {
      this.log.warn(
        { to: mail.to, err: { message: (error as Error).message } },
        "password reset link not mailed: SMTP refused or unreachable",
      );
      return false;
    }
  }

  close(): void {
    this.transport.close();
  }
}
