import type { Knex } from "knex";

// Prices, balances and the ledger (docs/BILLING.md). Money is bigint micro-units (1/1,000,000 of the account's
// currency) everywhere: no float, numeric or money column.
// - price_lists: the operator's lists (PUT /api/v1/price-lists/{name}); entries as given (jsonb), read whole
//   when a message is priced. accounts.price_list names one (ON UPDATE CASCADE; deleting a list in use fails).
// - accounts: the billing fields of an account's limits. Constant defaults: added at once.
// - account_balances: one row per account that was ever priced or credited, made by the operator's change
//   (PATCH of a price list) or credit; the balance is the sum of its ledger, always. fillfactor 50 and no index
//   on `balance`: its updates are HOT. Who moves it: acceptance (charges), the refund trigger below, credits.
// - ledger_entries: immutable rows, each with the balance after it. A message is charged at most once and
//   refunded at most once (the unique index), and only refunded when it was charged.
// - campaign_reservations: below.
// - messages.price_*: the price fixed when the message was accepted (NULL: the account had no price list).
//   Nullable without a default: added at once, whatever the table's size.
// - The refund: a trigger on messages, in the transaction of the status change, so no path that ends a
//   message (cancel, opt-out at its time, validity, no route, every carrier refusing, retention never: it
//   ends nothing) can miss it. A message refunds when it reaches `cancelled` or `failed` without having been
//   sent (from `scheduled` or `sending`), or, for an account charging on delivery, `undelivered` or `failed`.
//   A final status is reached once (nothing leaves one), so the refund happens once.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE price_lists (
      name text PRIMARY KEY,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      entries jsonb NOT NULL,
      default_price bigint CHECK (default_price >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE accounts
      ADD COLUMN currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
      ADD COLUMN price_list text REFERENCES price_lists(name) ON UPDATE CASCADE,
      ADD COLUMN billing text NOT NULL DEFAULT 'postpaid' CHECK (billing IN ('prepaid', 'postpaid')),
      ADD COLUMN credit_limit bigint NOT NULL DEFAULT 0 CHECK (credit_limit >= 0),
      ADD COLUMN low_balance_threshold bigint,
      ADD COLUMN charge_on text NOT NULL DEFAULT 'submitted' CHECK (charge_on IN ('submitted', 'delivered'));
    CREATE INDEX accounts_price_list_idx ON accounts (price_list) WHERE price_list IS NOT NULL;

    CREATE TABLE account_balances (
      account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      balance bigint NOT NULL DEFAULT 0,
      -- Below lowBalanceThreshold when last looked at: account.balance_low is sent when this turns true.
      low boolean NOT NULL DEFAULT false
    ) WITH (fillfactor = 50);

    CREATE TABLE ledger_entries (
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_uuid_v7(),
      created_at timestamptz NOT NULL DEFAULT now(),
      amount bigint NOT NULL,
      reason text NOT NULL CHECK (reason IN ('message_charge', 'message_refund', 'credit', 'campaign_reservation', 'campaign_release')),
      message_id uuid,
      batch_id uuid,
      campaign_id uuid,
      note text,
      balance_after bigint NOT NULL,
      PRIMARY KEY (account_id, id)
    );
    -- What is left of a campaign's reservation: its audience's cost debited at creation, released as its
    -- messages are made (each then charged its own price) and, for what remains, when fan-out ends or it is
    -- cancelled. Who moves it: campaign creation, fan-out and cancellation (billing/ledgerTable.ts).
    CREATE TABLE campaign_reservations (
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      campaign_id uuid NOT NULL,
      remaining bigint NOT NULL CHECK (remaining >= 0),
      PRIMARY KEY (account_id, campaign_id)
    );
    CREATE UNIQUE INDEX ledger_entries_once_idx ON ledger_entries (account_id, message_id, reason) WHERE message_id IS NOT NULL;

    ALTER TABLE messages ADD COLUMN price_amount bigint, ADD COLUMN price_per_segment bigint, ADD COLUMN price_currency text;

    CREATE FUNCTION refund_unsent_message() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      after bigint;
    BEGIN
      IF NOT (NEW.status IN ('cancelled', 'failed') AND OLD.status IN ('scheduled', 'sending'))
         AND NOT EXISTS (SELECT FROM accounts WHERE id = NEW.account_id AND charge_on = 'delivered') THEN
        RETURN NULL;
      END IF;
      IF NOT EXISTS (SELECT FROM ledger_entries WHERE account_id = NEW.account_id AND message_id = NEW.id AND reason = 'message_charge') THEN
        RETURN NULL;
      END IF;
      -- Back at or above the threshold: the next crossing below sends account.balance_low again.
      UPDATE account_balances b SET balance = b.balance + NEW.price_amount,
             low = b.low AND coalesce(b.balance + NEW.price_amount < a.low_balance_threshold, false)
        FROM accounts a
       WHERE b.account_id = NEW.account_id AND a.id = NEW.account_id
      RETURNING b.balance INTO after;
      INSERT INTO ledger_entries (account_id, amount, reason, message_id, batch_id, campaign_id, balance_after)
      VALUES (NEW.account_id, NEW.price_amount, 'message_refund', NEW.id, NEW.batch_id, NEW.campaign_id, after);
      RETURN NULL;
    END $$;
    CREATE TRIGGER refund_unsent_message AFTER UPDATE OF status ON messages FOR EACH ROW
      WHEN (NEW.price_amount IS NOT NULL AND NOT NEW.test AND NEW.status IN ('cancelled', 'failed', 'undelivered')
            AND OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION refund_unsent_message();
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
