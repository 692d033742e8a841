// The baseline for bench:api: an Express app that runs the same single statement as our POST
// /scheduler/schedule (job + message + wake-up, server/db/messages/insertScheduled.ts) per request, with no auth, no
// validation, no phone normalisation and no request logging: what accepting a message costs with nothing of
// our HTTP layer around it.
import express from "express";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { insertScheduledMessageStatement, scheduleMessageBindings } from "../server/db/messages/insertScheduled.js";
import { preparedQuery } from "../server/db/prepared.js";

// The same statement with the same values as ours (scheduleMessageBindings), so the two cannot drift apart: a
// baseline that sent 10 of the statement's 13 values answered every request with an error, and bench:api
// printed a ratio of 5.07 (it now refuses to print a ratio over errors).
const accountId = process.env.BASELINE_ACCOUNT_ID!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 25 });
const app = express();
app.use(express.json());
app.post("/api/v1/scheduler/schedule", async (req, res) => {
  const id = randomUUID();
  const jobId = randomUUID();
  const { to, from, body, scheduledAt } = req.body;
  try {
    const values = scheduleMessageBindings(accountId, {
      id,
      jobId,
      to,
      from,
      body,
      scheduledAt: new Date(scheduledAt),
      segments: 1,
      encoding: "GSM-7",
    });
    await pool.query(preparedQuery(insertScheduledMessageStatement, values));
    res.status(201).json({ messageId: id, jobId, status: "scheduled", scheduledAt });
  } catch (error) {
    res.status(500).json({ error: String(error) });
  }
});
app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
app.listen(Number(process.env.PORT), "127.0.0.1");
