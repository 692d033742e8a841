// npm run migrate: applies pending migrations to DATABASE_URL (or the embedded database) and exits.
import { destination } from "pino";
import { loadConfig } from "../server/config.js";
import { openDatabase } from "../server/db/open.js";
import { createLogger } from "../server/logger.js";

const log = createLogger(process.env.LOG_LEVEL ?? "info", destination(2));
const database = await openDatabase(loadConfig(), log, { shareRunning: true });
await database.close();
log.info("migrations are current");
