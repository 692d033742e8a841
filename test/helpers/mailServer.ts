// A real SMTP server on 127.0.0.1 for the tests of mail the service sends (invitations, password reset links):
// every message it takes, as its raw text. Call at the top level of a test file, before useTestServer (hooks
// run in the order they are registered), and give the server `smtpUrl` as a getter: the port is known once
// this server listens.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll } from "vitest";

export interface MailServer {
  /** The messages taken so far, oldest first. */
  mails: { to: string[]; raw: string }[];
  /** `smtp://127.0.0.1:<port>`, once listening. */
  readonly url: string;
}

export function useMailServer(): MailServer {
  const mails: MailServer["mails"] = [];
  let port = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        done();
      });
    },
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return {
    mails,
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
  };
}
