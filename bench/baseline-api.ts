// The baseline for bench:api: an Express app that runs the same single statement as our POST
// /scheduler/schedule (job + message + wake-up, server/db/messages/insertScheduled.ts) per request, with no auth, no
// validation, no phone normalisation and no request logging: what accepting a message costs with nothing of
// our HTTP layer around it.
import express from "express";
import knex from "knex";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { insertScheduledMessageStatement as scheduleMessageStatement } from "../server/db/messages/insertScheduled.js";

// The statement's named bindings compiled once to pg's $n form, as knex sends it; pg prepares it by name.
const compiler = knex({ client: "pg" });
const native = (values: Record<string, unknown>) =>
  compiler
    .raw(scheduleMessageStatement.text, values as Record<string, knex.Knex.Value>)
    .toSQL()
    .toNative();

const accountId = process.env.BASELINE_ACCOUNT_ID!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 25 });
const app = express();
app.use(express.json());
app.post("/api/v1/scheduler/schedule", async (req, res) => {
  const id = randomUUID();
  const jobId = randomUUID();
  const { to, from, body, scheduledAt } = req.body;
  const { sql, bindings } = native({
    id,
    jobId,
    to,
    from,
    body,
    wakeUp: "",
    scheduledAt,
    segments: 1,
    encoding: "GSM-7",
    accountId,
    validUntil: null,
    category: "transactional",
    priority: "normal",
    test: false,
  });
  await pool.query({ name: scheduleMessageStatement.name, text: sql, values: bindings as unknown[] });
  res.status(201).json({ messageId: id, jobId, status: "scheduled", scheduledAt });
});
app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
app.listen(Number(process.env.PORT), "127.0.0.1");
