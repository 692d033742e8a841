// API key administration: npm run --silent keys -- create --account NAME | create --operator NAME | list | revoke KEYID
// The new key is printed alone as the last line of stdout; logs go to stderr.
import { destination } from "pino";
import { loadConfig } from "../server/config.js";
import { listApiKeys } from "../server/operator/index.js";
import { openDatabase } from "../server/db/open.js";
import { createKeyForAccount, createOperatorKey, revokeKeyByCli } from "../server/operator/index.js";
import { createLogger } from "../server/logger.js";

const usage = "usage: keys create --account NAME | keys create --operator NAME | keys list | keys revoke KEYID";
const [command, ...rest] = process.argv.slice(2);
const config = loadConfig();
const log = createLogger(process.env.LOG_LEVEL ?? "warn", destination(2));

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

if (!command || !["create", "list", "revoke"].includes(command)) fail(`unknown command: ${command ?? "(none)"}`);
const flag = (name: string) => (rest.includes(name) ? (rest[rest.indexOf(name) + 1] ?? "") : undefined);
const accountName = flag("--account");
const operatorName = flag("--operator");
const named = accountName ?? operatorName;
if (command === "create" && (!named || named.length > 100 || (accountName !== undefined && operatorName !== undefined)))
  fail("create needs --account NAME or --operator NAME (1 to 100 characters)");
if (command === "revoke" && !rest[0]) fail("revoke needs a KEYID");

const database = await openDatabase(config, log, { shareRunning: true });
let exitCode = 0;
try {
  if (command === "create") {
    const { key } =
      operatorName !== undefined
        ? await createOperatorKey(database.db, operatorName)
        : await createKeyForAccount(database.db, accountName!);
    process.stdout.write(`${key}\n`);
  } else if (command === "list") {
    for (const k of await listApiKeys(database.db)) {
      const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
      const owner = k.kind === "operator" ? `operator${k.name ? ` (${k.name})` : ""}` : k.accountName;
      process.stdout.write(`${k.keyId}\t${owner}\t${k.createdAt.toISOString()}\t${state}\n`);
    }
  } else if (await revokeKeyByCli(database.db, rest[0]!)) {
    process.stdout.write(`revoked ${rest[0]}\n`);
  } else {
    process.stderr.write(`no active key ${rest[0]}\n`);
    exitCode = 1;
  }
} finally {
  await database.close();
}
process.exit(exitCode);
