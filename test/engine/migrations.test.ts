// Migrations applied to a database that already holds data, as an upgrade meets it: the data written under
// the previous schema reads the same afterwards. (Every other test starts from the fully migrated template.)
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ensureAccount, insertAccount, isAccountNameTaken } from "../../server/operator/index.js";
import { createDb, migrateLatest } from "../../server/db/knex.js";
import { getMessage } from "../../server/db/messages/index.js";
import { statusHistory } from "../../server/domain/messageHistory.js";
import { migrationSource } from "../../server/db/migrations/index.js";

const name = `m_${randomBytes(6).toString("hex")}`;
const name008 = `${name}_008`;
const name041 = `${name}_041`;
const name064 = `${name}_064`;
const name071 = `${name}_071`;
const adminUrl = () => inject("pgAdminUrl");
async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
let dropOnExit = true;
afterAll(async () => {
  if (dropOnExit) for (const db of [name, name008, name041, name064, name071]) await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
});

describe("migrations over existing data", () => {
  it("006: a message's stored 'scheduled' entry becomes its creation time; the history reads the same", async () => {
    await admin(`CREATE DATABASE ${name}`);
    const db = createDb(adminUrl().replace(/\/postgres$/, `/${name}`), 2);
    try {
      // Up to 005, the schema before the change, one migration at a time.
      for (const migration of await migrationSource.getMigrations([])) {
        if (migration.startsWith("006")) break;
        await db.migrate.up({ migrationSource });
      }
      const [account] = await db("accounts").insert({ name: "upgrade" }).returning("id");
      const id = randomUUID();
      await db("messages").insert({
        id,
        account_id: account.id,
        job_id: randomUUID(),
        recipient: "+14155550100",
        sender: "ACME",
        body: "hi",
        scheduled_at: new Date(),
        segments: 1,
        encoding: "GSM-7",
        status: "sent",
        sent_at: new Date(),
      });
      const { created_at: createdAt } = await db("messages").where({ id }).first("created_at");
      await db("messages")
        .where({ id })
        .update({ sent_at: new Date(createdAt.getTime() + 1000) });
      await db("message_status_history").insert([
        { message_id: id, status: "scheduled", at: createdAt },
        { message_id: id, status: "sent", at: new Date(createdAt.getTime() + 1000) },
      ]);
      const stored = await db("message_status_history").where({ message_id: id }).orderBy("id").pluck("status");
      expect(stored).toEqual(["scheduled", "sent"]);

      await migrateLatest(db);
      // 006 dropped the stored "scheduled" (it is implicit); 064 derives the history from the row's times.
      const after = statusHistory((await getMessage(db, account.id, id))!);
      expect(after).toEqual([
        { status: "scheduled", at: createdAt },
        { status: "sent", at: new Date(createdAt.getTime() + 1000) },
      ]);
      // 071 dropped the stored history once no release wrote it.
      expect((await db.raw("SELECT to_regclass('message_status_history') AS t")).rows[0].t).toBeNull();
      // 010: every message before it is outbound; an inbound one cannot have a schedule's shape.
      expect(await db("messages").where({ id }).first("direction", "incomplete")).toEqual({ direction: "outbound", incomplete: false });
      await expect(db("messages").where({ id }).update({ direction: "inbound" })).rejects.toThrow(/messages_direction_shape/);
      // 012: an inbound body (a long message, reassembled) may pass 1600 characters; an outbound one still may not.
      await db("messages").insert({
        account_id: account.id,
        direction: "inbound",
        recipient: "+14155550100",
        sender: "+14155550101",
        body: "x".repeat(2000),
        status: "received",
        received_at: new Date(),
        segments: 14,
        encoding: "GSM-7",
      });
      await expect(
        db("messages")
          .where({ id })
          .update({ body: "x".repeat(1601) }),
      ).rejects.toThrow(/messages_body_length/);
    } catch (error) {
      dropOnExit = false;
      process.stderr.write(`kept database ${name} for inspection\n`);
      throw error;
    } finally {
      await db.destroy();
    }
  });

  it("008: messages written with random ids read the same; new ids are version 7; an erased body fits the new CHECK", async () => {
    await admin(`CREATE DATABASE ${name008}`);
    const db = createDb(adminUrl().replace(/\/postgres$/, `/${name008}`), 2);
    try {
      for (const migration of await migrationSource.getMigrations([])) {
        if (migration.startsWith("008")) break;
        await db.migrate.up({ migrationSource });
      }
      const [account] = await db("accounts").insert({ name: "upgrade" }).returning("id");
      const old = { id: randomUUID(), account_id: account.id, job_id: randomUUID(), recipient: "+14155550100", sender: "ACME", body: "hi" };
      await db("messages").insert({ ...old, scheduled_at: new Date(), segments: 1, encoding: "GSM-7", status: "delivered" });

      await migrateLatest(db);
      expect(await db("messages").where({ id: old.id }).first(Object.keys(old))).toEqual(old);
      const [fresh] = await db("messages")
        .insert({ ...old, id: undefined, scheduled_at: new Date(), segments: 1, encoding: "GSM-7" })
        .returning("id");
      expect(fresh.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      await db("messages").where({ id: old.id }).update({ body: "" });
      await expect(
        db("messages")
          .where({ id: old.id })
          .update({ body: "x".repeat(1601) }),
      ).rejects.toThrow(/messages_body_length/);
    } catch (error) {
      dropOnExit = false;
      process.stderr.write(`kept database ${name008} for inspection\n`);
      throw error;
    } finally {
      await db.destroy();
    }
  });

  it("041: accounts named alike keep their names; the oldest keeps the name, and no new account can take it", async () => {
    await admin(`CREATE DATABASE ${name041}`);
    const db = createDb(adminUrl().replace(/\/postgres$/, `/${name041}`), 2);
    try {
      for (const migration of await migrationSource.getMigrations([])) {
        if (migration.startsWith("041")) break;
        await db.migrate.up({ migrationSource });
      }
      const names = ["Acme", "ACME ", "\uff21\uff23\uff2d\uff25", "Straße", "STRASSE", "other"];
      const ids: string[] = [];
      for (const [i, n] of names.entries())
        ids.push(
          (
            await db("accounts")
              .insert({ name: n, created_at: new Date(Date.UTC(2026, 0, 1 + i)) })
              .returning("id")
          )[0].id,
        );

      await migrateLatest(db);
      const rows = await db("accounts").orderBy("created_at").select("id", "name", "name_key");
      expect(rows.map((r: { name: string }) => r.name)).toEqual(names);
      expect(rows.map((r: { name_key: string }) => r.name_key)).toEqual([
        "acme",
        `acme#${ids[1]}`,
        `acme#${ids[2]}`,
        "strasse",
        `strasse#${ids[4]}`,
        "other",
      ]);
      await expect(insertAccount(db, " acme")).rejects.toSatisfy(isAccountNameTaken);
      expect((await ensureAccount(db, "ＡＣＭＥ ")).id).toBe(ids[0]);
    } catch (error) {
      dropOnExit = false;
      process.stderr.write(`kept database ${name041} for inspection\n`);
      throw error;
    } finally {
      await db.destroy();
    }
  });

  it("064: a failed or undelivered message's time comes from its stored history; every history reads the same", async () => {
    await admin(`CREATE DATABASE ${name064}`);
    const db = createDb(adminUrl().replace(/\/postgres$/, `/${name064}`), 2);
    try {
      for (const migration of await migrationSource.getMigrations([])) {
        if (migration.startsWith("064")) break;
        await db.migrate.up({ migrationSource });
      }
      const [account] = await db("accounts").insert({ name: "upgrade" }).returning("id");
      const t0 = new Date(Date.UTC(2026, 5, 1, 12));
      const at = (s: number) => new Date(t0.getTime() + s * 1000);
      const base = { account_id: account.id, recipient: "+14155550100", sender: "ACME", body: "hi", scheduled_at: t0 };
      const message = async (fields: Record<string, unknown>, history: { status: string; at: Date }[]) => {
        const [row] = await db("messages")
          .insert({ ...base, job_id: randomUUID(), segments: 1, encoding: "GSM-7", created_at: t0, ...fields })
          .returning("id");
        for (const h of history) await db("message_status_history").insert({ account_id: account.id, message_id: row.id, ...h });
        return row.id as string;
      };
      const failedAfterSent = await message({ status: "failed", sent_at: at(1) }, [
        { status: "sent", at: at(1) },
        { status: "failed", at: at(5) },
      ]);
      const undelivered = await message({ status: "undelivered", sent_at: at(1) }, [
        { status: "sent", at: at(1) },
        { status: "undelivered", at: at(9) },
      ]);
      // A failed message whose history entry is gone (retention, a hand-edit): its creation time.
      const failedBare = await message({ status: "failed" }, []);
      const delivered = await message({ status: "delivered", sent_at: at(1), delivered_at: at(2) }, [
        { status: "sent", at: at(1) },
        { status: "delivered", at: at(2) },
      ]);
      const cancelled = await message({ status: "cancelled", cancelled_at: at(3) }, [{ status: "cancelled", at: at(3) }]);

      await migrateLatest(db);
      const history = async (id: string) =>
        statusHistory((await getMessage(db, account.id, id))!).map((h) => [h.status, h.at.getTime() - t0.getTime()]);
      expect(await history(failedAfterSent)).toEqual([
        ["scheduled", 0],
        ["sent", 1000],
        ["failed", 5000],
      ]);
      expect(await history(undelivered)).toEqual([
        ["scheduled", 0],
        ["sent", 1000],
        ["undelivered", 9000],
      ]);
      expect(await history(failedBare)).toEqual([
        ["scheduled", 0],
        ["failed", 0],
      ]);
      expect(await history(delivered)).toEqual([
        ["scheduled", 0],
        ["sent", 1000],
        ["delivered", 2000],
      ]);
      expect(await history(cancelled)).toEqual([
        ["scheduled", 0],
        ["cancelled", 3000],
      ]);
      // The failed list finds them by failed_at (messages_failed_page_idx).
      expect(await db("messages").whereNotNull("failed_at").orderBy("failed_at").pluck("id")).toEqual([
        failedBare,
        failedAfterSent,
        undelivered,
      ]);
    } catch (error) {
      dropOnExit = false;
      process.stderr.write(`kept database ${name064} for inspection\n`);
      throw error;
    } finally {
      await db.destroy();
    }
  });
  it("071: a message a 064-era worker failed without failed_at gets it from its history; then it is required and the history table goes", async () => {
    await admin(`CREATE DATABASE ${name071}`);
    const db = createDb(adminUrl().replace(/\/postgres$/, `/${name071}`), 2);
    try {
      for (const migration of await migrationSource.getMigrations([])) {
        if (migration.startsWith("071")) break;
        await db.migrate.up({ migrationSource });
      }
      const [account] = await db("accounts").insert({ name: "upgrade" }).returning("id");
      const t0 = new Date(Date.UTC(2026, 5, 1, 12));
      const [row] = await db("messages")
        .insert({
          account_id: account.id,
          job_id: randomUUID(),
          recipient: "+14155550100",
          sender: "ACME",
          body: "hi",
          scheduled_at: t0,
          created_at: t0,
          segments: 1,
          encoding: "GSM-7",
          status: "failed",
        })
        .returning("id");
      await db("message_status_history").insert({
        account_id: account.id,
        message_id: row.id,
        status: "failed",
        at: new Date(t0.getTime() + 7000),
      });

      await migrateLatest(db);
      const { failed_at: failedAt } = await db("messages").where({ id: row.id }).first("failed_at");
      expect(failedAt.getTime() - t0.getTime()).toBe(7000);
      expect((await db.raw("SELECT to_regclass('message_status_history') AS t")).rows[0].t).toBeNull();
      await expect(db("messages").where({ id: row.id }).update({ failed_at: null })).rejects.toThrow(/messages_failed_at_check/);
      const history = statusHistory((await getMessage(db, account.id, row.id))!).map((h) => [h.status, h.at.getTime() - t0.getTime()]);
      expect(history).toEqual([
        ["scheduled", 0],
        ["failed", 7000],
      ]);
    } catch (error) {
      dropOnExit = false;
      process.stderr.write(`kept database ${name071} for inspection\n`);
      throw error;
    } finally {
      await db.destroy();
    }
  });
});
