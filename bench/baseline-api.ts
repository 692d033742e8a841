// The baseline for bench:api: an Express app that does one INSERT per request, with no auth, no validation,
// no job, no history: what "accepting a message" costs with nothing of ours around it.
import express from "express";
import { randomUUID } from "node:crypto";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 25 });
const app = express();
app.use(express.json());
app.post("/api/v1/scheduler/schedule", async (req, res) => {
  const id = randomUUID();
  await pool.query("INSERT INTO baseline_messages (id, recipient, sender, body, scheduled_at) VALUES ($1, $2, $3, $4, $5)", [
    id, req.body.to, req.body.from, req.body.body, req.body.scheduledAt,
  ]);
  res.status(201).json({ messageId: id, status: "scheduled", scheduledAt: req.body.scheduledAt });
});
app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
app.listen(Number(process.env.PORT), "127.0.0.1");
