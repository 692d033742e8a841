import type { Knex } from "knex";
import * as m001 from "./001_initial_schema.js";
import * as m002 from "./002_delivery_engine.js";
import * as m003 from "./003_rate_limits.js";
import * as m004 from "./004_smpp_segments.js";
import * as m005 from "./005_claim_jobs_function.js";
import * as m006 from "./006_implicit_scheduled_history.js";
import * as m007 from "./007_smpp_ids_reused.js";
import * as m008 from "./008_lifecycle_flat_costs.js";
import * as m009 from "./009_lanes_claim_by_lane.js";
import * as m010 from "./010_consent_two_way.js";
import * as m011 from "./011_wire_unknown_outcomes.js";
import * as m012 from "./012_kept_receipts_by_id.js";
import * as m013 from "./013_inbound_parts.js";
import * as m014 from "./014_policy_validity.js";
import * as m015 from "./015_policy_priority.js";
import * as m016 from "./016_one_claim_index.js";
import * as m017 from "./017_policy_settings_columns.js";
import * as m018 from "./018_throughput_caps.js";
import * as m019 from "./019_account_scoped_statements.js";
import * as m020 from "./020_claim_jobs_v2.js";
import * as m021 from "./021_claim_jobs_v3.js";
import * as m022 from "./022_connectors.js";
import * as m023 from "./023_operator_keys.js";
import * as m024 from "./024_unrouted_messages.js";
import * as m025 from "./025_auto_reply_caps.js";
import * as m026 from "./026_operator_layer.js";
import * as m027 from "./027_sending_extras.js";
import * as m028 from "./028_account_rate_buckets.js";
import * as m029 from "./029_fair_claim.js";
import * as m030 from "./030_claim_refill.js";
import * as m031 from "./031_carrier_id_keys.js";
import * as m032 from "./032_carrier_routing.js";
import * as m033 from "./033_sender_pools.js";
import * as m034 from "./034_connector_counters.js";
import * as m035 from "./035_shared_sessions.js";
import * as m036 from "./036_message_counts.js";
import * as m037 from "./037_hourly_message_counts.js";
import * as m038 from "./038_status_counts_in_statements.js";
import * as m039 from "./039_stored_counts_in_statements.js";
import * as m040 from "./040_idempotent_response_text.js";
import * as m041 from "./041_account_name_keys.js";
import * as m042 from "./042_bodies_awaiting_erasure.js";
import * as m043 from "./043_drop_replaced_claims.js";
import * as m044 from "./044_handed_receipt_deliveries.js";
import * as m045 from "./045_smpp_credentials.js";
import * as m046 from "./046_smpp_outbox.js";
import * as m047 from "./047_smpp_submit_parts.js";
import * as m048 from "./048_smpp_server_counters.js";
import * as m049 from "./049_prices_and_balances.js";
import * as m050 from "./050_batched_webhooks.js";
import * as m051 from "./051_spend_and_campaign_costs.js";
import * as m052 from "./052_users_and_sessions.js";
import * as m053 from "./053_contact_details.js";
import * as m054 from "./054_campaign_personalisation.js";
import * as m055 from "./055_templates.js";
import * as m056 from "./056_campaign_pause.js";
import * as m057 from "./057_contact_groups.js";
import * as m058 from "./058_conversations.js";
import * as m059 from "./059_key_makers.js";
import * as m060 from "./060_campaign_skipped_by.js";
import * as m061 from "./061_smpp_bind_locks.js";
import * as m062 from "./062_sign_in_hardening.js";
import * as m063 from "./063_blocked_prefixes.js";
import * as m064 from "./064_message_floor.js";
import * as m065 from "./065_password_resets.js";
import * as m066 from "./066_operator_settings.js";
import * as m067 from "./067_audit_actor_email.js";
import * as m068 from "./068_operator_auditors.js";
import * as m069 from "./069_carrier_ids_on_messages.js";
import * as m070 from "./070_count_deltas_per_connection.js";
import * as m071 from "./071_message_floor_contract.js";
import * as m072 from "./072_receipt_outcomes_hot.js";

// Migrations are imported, not discovered on disk: knex's file loader cannot load .ts under every runner
// (vitest on Node 20 among them). Forward-only: add a new numbered file, never edit an applied one.
const migrations: Record<string, Knex.Migration> = {
  "001_initial_schema": m001,
  "002_delivery_engine": m002,
  "003_rate_limits": m003,
  "004_smpp_segments": m004,
  "005_claim_jobs_function": m005,
  "006_implicit_scheduled_history": m006,
  "007_smpp_ids_reused": m007,
  "008_lifecycle_flat_costs": m008,
  "009_lanes_claim_by_lane": m009,
  "010_consent_two_way": m010,
  "011_wire_unknown_outcomes": m011,
  "012_kept_receipts_by_id": m012,
  "013_inbound_parts": m013,
  "014_policy_validity": m014,
  "015_policy_priority": m015,
  "016_one_claim_index": m016,
  "017_policy_settings_columns": m017,
  "018_throughput_caps": m018,
  "019_account_scoped_statements": m019,
  "020_claim_jobs_v2": m020,
  "021_claim_jobs_v3": m021,
  "022_connectors": m022,
  "023_operator_keys": m023,
  "024_unrouted_messages": m024,
  "025_auto_reply_caps": m025,
  "026_operator_layer": m026,
  "027_sending_extras": m027,
  "028_account_rate_buckets": m028,
  "029_fair_claim": m029,
  "030_claim_refill": m030,
  "031_carrier_id_keys": m031,
  "032_carrier_routing": m032,
  "033_sender_pools": m033,
  "034_connector_counters": m034,
  "035_shared_sessions": m035,
  "036_message_counts": m036,
  "037_hourly_message_counts": m037,
  "038_status_counts_in_statements": m038,
  "039_stored_counts_in_statements": m039,
  "040_idempotent_response_text": m040,
  "041_account_name_keys": m041,
  "042_bodies_awaiting_erasure": m042,
  "043_drop_replaced_claims": m043,
  "044_handed_receipt_deliveries": m044,
  "045_smpp_credentials": m045,
  "046_smpp_outbox": m046,
  "047_smpp_submit_parts": m047,
  "048_smpp_server_counters": m048,
  "049_prices_and_balances": m049,
  "050_batched_webhooks": m050,
  "051_spend_and_campaign_costs": m051,
  "052_users_and_sessions": m052,
  "053_contact_details": m053,
  "054_campaign_personalisation": m054,
  "055_templates": m055,
  "056_campaign_pause": m056,
  "057_contact_groups": m057,
  "058_conversations": m058,
  "059_key_makers": m059,
  "060_campaign_skipped_by": m060,
  "061_smpp_bind_locks": m061,
  "062_sign_in_hardening": m062,
  "063_blocked_prefixes": m063,
  "064_message_floor": m064,
  "065_password_resets": m065,
  "066_operator_settings": m066,
  "067_audit_actor_email": m067,
  "068_operator_auditors": m068,
  "069_carrier_ids_on_messages": m069,
  "070_count_deltas_per_connection": m070,
  "071_message_floor_contract": m071,
  "072_receipt_outcomes_hot": m072,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
