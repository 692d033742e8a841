-- The schema a fresh migrate leaves (npm run schema writes this file; do not edit it by hand).

CREATE TABLE account_balances (
  account_id uuid NOT NULL,
  balance bigint NOT NULL DEFAULT 0,
  low boolean NOT NULL DEFAULT false,
  CONSTRAINT account_balances_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT account_balances_pkey PRIMARY KEY (account_id)
);

CREATE TABLE account_daily_usage (
  account_id uuid NOT NULL,
  day date NOT NULL,
  segments_accepted bigint NOT NULL,
  warned_at timestamp with time zone,
  CONSTRAINT account_daily_usage_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT account_daily_usage_pkey PRIMARY KEY (account_id, day),
  CONSTRAINT account_daily_usage_segments_accepted_check CHECK ((segments_accepted >= 0))
);

CREATE TABLE account_settings (
  account_id uuid NOT NULL,
  opt_out_reply text DEFAULT 'You have been unsubscribed and will receive no more messages. Reply START to resubscribe.'::text,
  opt_in_reply text DEFAULT 'You have been resubscribed. Reply STOP to unsubscribe.'::text,
  help_reply text DEFAULT 'Reply STOP to unsubscribe. Msg & data rates may apply.'::text,
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  quiet_hours_start text,
  quiet_hours_end text,
  default_time_zone text NOT NULL DEFAULT 'UTC'::text,
  max_segments_per_second integer,
  smart_encoding boolean NOT NULL DEFAULT false,
  CONSTRAINT account_settings_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT account_settings_help_reply_check CHECK (((length(help_reply) >= 1) AND (length(help_reply) <= 320))),
  CONSTRAINT account_settings_max_segments_per_second_check CHECK ((max_segments_per_second >= 1)),
  CONSTRAINT account_settings_opt_in_reply_check CHECK (((length(opt_in_reply) >= 1) AND (length(opt_in_reply) <= 320))),
  CONSTRAINT account_settings_opt_out_reply_check CHECK (((length(opt_out_reply) >= 1) AND (length(opt_out_reply) <= 320))),
  CONSTRAINT account_settings_pkey PRIMARY KEY (account_id),
  CONSTRAINT account_settings_quiet_hours CHECK ((((quiet_hours_start IS NULL) AND (quiet_hours_end IS NULL)) OR ((quiet_hours_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'::text) AND (quiet_hours_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'::text) AND (quiet_hours_start <> quiet_hours_end))))
);

CREATE TABLE accounts (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  name text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  message_retention_days integer,
  bodies_redacted_before timestamp with time zone,
  suspended boolean NOT NULL DEFAULT false,
  weight integer NOT NULL DEFAULT 1,
  daily_segment_quota integer,
  allowed_countries text[],
  sender_ids text[],
  self_service_numbers boolean NOT NULL DEFAULT false,
  max_segments_per_second integer,
  first_start boolean NOT NULL DEFAULT false,
  name_key text,
  currency text NOT NULL DEFAULT 'USD'::text,
  price_list text,
  billing text NOT NULL DEFAULT 'postpaid'::text,
  credit_limit bigint NOT NULL DEFAULT 0,
  low_balance_threshold bigint,
  charge_on text NOT NULL DEFAULT 'submitted'::text,
  require_two_factor boolean NOT NULL DEFAULT false,
  blocked_prefixes text[] NOT NULL DEFAULT '{}'::text[],
  CONSTRAINT accounts_allowed_countries_check CHECK ((cardinality(allowed_countries) >= 1)),
  CONSTRAINT accounts_billing_check CHECK ((billing = ANY (ARRAY['prepaid'::text, 'postpaid'::text]))),
  CONSTRAINT accounts_charge_on_check CHECK ((charge_on = ANY (ARRAY['submitted'::text, 'delivered'::text]))),
  CONSTRAINT accounts_credit_limit_check CHECK ((credit_limit >= 0)),
  CONSTRAINT accounts_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
  CONSTRAINT accounts_daily_segment_quota_check CHECK ((daily_segment_quota >= 1)),
  CONSTRAINT accounts_max_segments_per_second_check CHECK ((max_segments_per_second >= 1)),
  CONSTRAINT accounts_message_retention_days_check CHECK ((message_retention_days >= 1)),
  CONSTRAINT accounts_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT accounts_name_key UNIQUE (name),
  CONSTRAINT accounts_pkey PRIMARY KEY (id),
  CONSTRAINT accounts_price_list_fkey FOREIGN KEY (price_list) REFERENCES price_lists(name) ON UPDATE CASCADE,
  CONSTRAINT accounts_sender_ids_check CHECK ((cardinality(sender_ids) >= 1)),
  CONSTRAINT accounts_weight_check CHECK (((weight >= 1) AND (weight <= 100)))
);

CREATE TABLE api_keys (
  key_id text NOT NULL,
  account_id uuid,
  secret_hash bytea NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  revoked_at timestamp with time zone,
  kind text NOT NULL DEFAULT 'account'::text,
  name text,
  last_used_at timestamp with time zone,
  scope text,
  expires_at timestamp with time zone,
  test boolean NOT NULL DEFAULT false,
  created_by_user_id uuid,
  created_by_email text,
  CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT api_keys_created_by_check CHECK (((created_by_user_id IS NULL) = (created_by_email IS NULL))),
  CONSTRAINT api_keys_created_by_kind_check CHECK (((created_by_user_id IS NULL) OR (kind = 'account'::text))),
  CONSTRAINT api_keys_key_id_check CHECK ((key_id ~ '^[0-9A-Za-z]{12}$'::text)),
  CONSTRAINT api_keys_kind_account_check CHECK (((kind = 'operator'::text) = (account_id IS NULL))),
  CONSTRAINT api_keys_kind_check CHECK ((kind = ANY (ARRAY['account'::text, 'operator'::text]))),
  CONSTRAINT api_keys_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT api_keys_pkey PRIMARY KEY (key_id),
  CONSTRAINT api_keys_scope_check CHECK ((scope = ANY (ARRAY['full'::text, 'send'::text, 'read'::text]))),
  CONSTRAINT api_keys_scope_kind_check CHECK (((kind = 'account'::text) = (scope IS NOT NULL))),
  CONSTRAINT api_keys_secret_hash_check CHECK ((length(secret_hash) = 32)),
  CONSTRAINT api_keys_test_kind_check CHECK (((NOT test) OR (kind = 'account'::text)))
);

CREATE TABLE audit_events (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  actor_type text NOT NULL,
  key_id text,
  account_id uuid,
  action text NOT NULL,
  resource_id text,
  request_id text,
  status integer,
  actor_email text,
  CONSTRAINT audit_events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT audit_events_actor_type_check CHECK ((actor_type = ANY (ARRAY['account'::text, 'operator'::text, 'cli'::text]))),
  CONSTRAINT audit_events_pkey PRIMARY KEY (id)
);

CREATE TABLE auto_replies (
  account_id uuid NOT NULL,
  phone text NOT NULL,
  kind text NOT NULL,
  last_sent_at timestamp with time zone NOT NULL,
  CONSTRAINT auto_replies_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT auto_replies_kind_check CHECK ((kind = ANY (ARRAY['opt_out'::text, 'opt_in'::text, 'help'::text]))),
  CONSTRAINT auto_replies_pkey PRIMARY KEY (account_id, phone, kind)
);

CREATE TABLE auto_reply_counts (
  account_id uuid NOT NULL,
  phone text NOT NULL,
  window_start timestamp with time zone NOT NULL,
  sent integer NOT NULL,
  CONSTRAINT auto_reply_counts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT auto_reply_counts_pkey PRIMARY KEY (account_id, phone, window_start),
  CONSTRAINT auto_reply_counts_sent_check CHECK ((sent >= 0))
);

CREATE TABLE batches (
  id uuid NOT NULL,
  account_id uuid NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  accepted integer NOT NULL,
  rejected integer NOT NULL,
  CONSTRAINT batches_accepted_check CHECK ((accepted >= 0)),
  CONSTRAINT batches_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT batches_pkey PRIMARY KEY (id),
  CONSTRAINT batches_rejected_check CHECK ((rejected >= 0))
);

CREATE TABLE bodies_awaiting_erasure (
  message_id uuid NOT NULL,
  account_id uuid NOT NULL,
  CONSTRAINT bodies_awaiting_erasure_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE,
  CONSTRAINT bodies_awaiting_erasure_pkey PRIMARY KEY (message_id)
);

CREATE TABLE campaign_recipients (
  campaign_id uuid NOT NULL,
  seq integer NOT NULL,
  phone text NOT NULL,
  first_name text,
  account_id uuid,
  last_name text,
  custom_fields jsonb,
  CONSTRAINT campaign_recipients_account_id_not_null CHECK ((account_id IS NOT NULL)),
  CONSTRAINT campaign_recipients_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES campaigns(id) ON DELETE CASCADE,
  CONSTRAINT campaign_recipients_pkey PRIMARY KEY (campaign_id, seq),
  CONSTRAINT campaign_recipients_seq_check CHECK ((seq >= 1))
);

CREATE TABLE campaign_reservations (
  account_id uuid NOT NULL,
  campaign_id uuid NOT NULL,
  remaining bigint NOT NULL,
  CONSTRAINT campaign_reservations_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT campaign_reservations_pkey PRIMARY KEY (account_id, campaign_id),
  CONSTRAINT campaign_reservations_remaining_check CHECK ((remaining >= 0))
);

CREATE TABLE campaigns (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  message text NOT NULL,
  type text NOT NULL,
  sender text NOT NULL,
  group_id uuid,
  status text NOT NULL,
  scheduled_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  audience_size integer NOT NULL DEFAULT 0,
  fanout_done integer NOT NULL DEFAULT 0,
  completed_at timestamp with time zone,
  cancelled_at timestamp with time zone,
  opted_out integer NOT NULL DEFAULT 0,
  validity_period integer,
  category text NOT NULL DEFAULT 'marketing'::text,
  priority text NOT NULL DEFAULT 'low'::text,
  test boolean NOT NULL DEFAULT false,
  skipped integer NOT NULL DEFAULT 0,
  reference text,
  metadata jsonb,
  smart_encoding boolean NOT NULL DEFAULT false,
  sender_pool_id uuid,
  estimated_cost bigint,
  fallbacks jsonb,
  template_id uuid,
  paused_at timestamp with time zone,
  started_at timestamp with time zone,
  skipped_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  CONSTRAINT campaigns_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT campaigns_audience_size_check CHECK ((audience_size >= 0)),
  CONSTRAINT campaigns_category_check CHECK ((category = ANY (ARRAY['transactional'::text, 'marketing'::text]))),
  CONSTRAINT campaigns_check CHECK (((type = 'scheduled'::text) = (scheduled_at IS NOT NULL))),
  CONSTRAINT campaigns_estimated_cost_check CHECK ((estimated_cost >= 0)),
  CONSTRAINT campaigns_fanout_bounds CHECK ((fanout_done <= audience_size)),
  CONSTRAINT campaigns_fanout_done_check CHECK ((fanout_done >= 0)),
  CONSTRAINT campaigns_group_id_fkey FOREIGN KEY (group_id) REFERENCES groups(id) ON DELETE SET NULL,
  CONSTRAINT campaigns_opted_out_check CHECK ((opted_out >= 0)),
  CONSTRAINT campaigns_pkey PRIMARY KEY (id),
  CONSTRAINT campaigns_priority_check CHECK ((priority = ANY (ARRAY['high'::text, 'normal'::text, 'low'::text]))),
  CONSTRAINT campaigns_reference_check CHECK (((length(reference) >= 1) AND (length(reference) <= 128))),
  CONSTRAINT campaigns_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'scheduled'::text, 'sending'::text, 'paused'::text, 'completed'::text, 'cancelled'::text]))),
  CONSTRAINT campaigns_type_check CHECK ((type = ANY (ARRAY['instant'::text, 'scheduled'::text]))),
  CONSTRAINT campaigns_validity_period_check CHECK (((validity_period >= 1) AND (validity_period <= 604800)))
);

CREATE TABLE connector_states (
  connector_id uuid NOT NULL,
  worker_id text NOT NULL,
  state text NOT NULL,
  sessions_bound integer NOT NULL,
  state_since timestamp with time zone NOT NULL,
  last_error text,
  seen_at timestamp with time zone NOT NULL DEFAULT now(),
  accepted bigint NOT NULL DEFAULT 0,
  refused bigint NOT NULL DEFAULT 0,
  unknown bigint NOT NULL DEFAULT 0,
  sessions_held integer,
  CONSTRAINT connector_states_connector_id_fkey FOREIGN KEY (connector_id) REFERENCES connectors(id) ON DELETE CASCADE,
  CONSTRAINT connector_states_pkey PRIMARY KEY (connector_id, worker_id),
  CONSTRAINT connector_states_state_check CHECK ((state = ANY (ARRAY['bound'::text, 'binding'::text, 'down'::text, 'disabled'::text])))
);

CREATE TABLE connectors (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  name text NOT NULL,
  type text NOT NULL,
  smpp jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  max_segments_per_second integer,
  enabled boolean NOT NULL DEFAULT true,
  CONSTRAINT connectors_max_segments_per_second_check CHECK ((max_segments_per_second >= 1)),
  CONSTRAINT connectors_name_key UNIQUE (name),
  CONSTRAINT connectors_pkey PRIMARY KEY (id),
  CONSTRAINT connectors_smpp_check CHECK (((type = 'smpp'::text) = (smpp IS NOT NULL))),
  CONSTRAINT connectors_type_check CHECK ((type = ANY (ARRAY['simulator'::text, 'smpp'::text])))
);

CREATE TABLE contact_groups (
  account_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  group_id uuid NOT NULL,
  position smallint NOT NULL,
  CONSTRAINT contact_groups_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT contact_groups_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE,
  CONSTRAINT contact_groups_group_id_fkey FOREIGN KEY (group_id) REFERENCES groups(id) ON DELETE CASCADE,
  CONSTRAINT contact_groups_pkey PRIMARY KEY (contact_id, group_id)
);

CREATE TABLE contacts (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  phone text NOT NULL,
  first_name text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  time_zone text,
  last_name text,
  tags text[] NOT NULL DEFAULT '{}'::text[],
  custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
  CONSTRAINT contacts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT contacts_account_phone_key UNIQUE (account_id, phone),
  CONSTRAINT contacts_phone_check CHECK ((phone ~ '^\+[1-9][0-9]{6,14}$'::text)),
  CONSTRAINT contacts_pkey PRIMARY KEY (id)
);

CREATE TABLE conversations (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  phone text NOT NULL,
  last_message_id uuid NOT NULL,
  last_body text NOT NULL,
  last_received_at timestamp with time zone NOT NULL,
  received integer NOT NULL,
  unread integer NOT NULL,
  read_at timestamp with time zone,
  CONSTRAINT conversations_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT conversations_pkey PRIMARY KEY (id),
  CONSTRAINT conversations_received_check CHECK ((received > 0)),
  CONSTRAINT conversations_unread_check CHECK ((unread >= 0))
);

CREATE TABLE groups (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  description text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT groups_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT groups_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT groups_pkey PRIMARY KEY (id)
);

CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  response_text text,
  CONSTRAINT idempotency_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT idempotency_keys_key_check CHECK (((length(key) >= 1) AND (length(key) <= 255))),
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, key)
);

CREATE TABLE inbound_parts (
  sender text NOT NULL,
  recipient text NOT NULL,
  reference integer NOT NULL,
  total smallint NOT NULL,
  seq smallint NOT NULL,
  body text NOT NULL,
  encoding text NOT NULL,
  received_at timestamp with time zone NOT NULL DEFAULT now(),
  assembled_at timestamp with time zone,
  CONSTRAINT inbound_parts_check CHECK (((seq >= 1) AND (seq <= total))),
  CONSTRAINT inbound_parts_encoding_check CHECK ((encoding = ANY (ARRAY['GSM-7'::text, 'UCS-2'::text]))),
  CONSTRAINT inbound_parts_pkey PRIMARY KEY (sender, recipient, reference, total, seq),
  CONSTRAINT inbound_parts_reference_check CHECK (((reference >= 0) AND (reference <= 65535))),
  CONSTRAINT inbound_parts_total_check CHECK (((total >= 2) AND (total <= 255)))
);

CREATE TABLE jobs (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  state text NOT NULL DEFAULT 'available'::text,
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 1,
  run_at timestamp with time zone NOT NULL DEFAULT now(),
  locked_by text,
  locked_until timestamp with time zone,
  errors jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  finalized_at timestamp with time zone,
  priority smallint NOT NULL DEFAULT 1,
  account_id uuid,
  connector_id uuid,
  CONSTRAINT jobs_attempt_check CHECK ((attempt >= 0)),
  CONSTRAINT jobs_check CHECK (((state = 'running'::text) = ((locked_by IS NOT NULL) AND (locked_until IS NOT NULL)))),
  CONSTRAINT jobs_finalized_check CHECK (((state = ANY (ARRAY['cancelled'::text, 'discarded'::text])) = (finalized_at IS NOT NULL))),
  CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1)),
  CONSTRAINT jobs_pkey PRIMARY KEY (id),
  CONSTRAINT jobs_priority_check CHECK (((priority >= '-1'::integer) AND (priority <= 2))),
  CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['available'::text, 'running'::text, 'retryable'::text, 'cancelled'::text, 'discarded'::text])))
);

CREATE TABLE ledger_entries (
  account_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  amount bigint NOT NULL,
  reason text NOT NULL,
  message_id uuid,
  batch_id uuid,
  campaign_id uuid,
  note text,
  balance_after bigint NOT NULL,
  CONSTRAINT ledger_entries_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT ledger_entries_pkey PRIMARY KEY (account_id, id),
  CONSTRAINT ledger_entries_reason_check CHECK ((reason = ANY (ARRAY['message_charge'::text, 'message_refund'::text, 'credit'::text, 'campaign_reservation'::text, 'campaign_release'::text])))
);

CREATE TABLE message_count_deltas (
  account_id uuid NOT NULL,
  bucket timestamp with time zone NOT NULL,
  event text NOT NULL,
  country text NOT NULL,
  category text NOT NULL,
  campaign_id uuid NOT NULL,
  connector_id uuid NOT NULL,
  error_code text NOT NULL,
  ttd smallint NOT NULL,
  messages bigint NOT NULL,
  segments bigint NOT NULL,
  backend bigint NOT NULL DEFAULT nextval('message_count_deltas_unkeyed'::regclass),
  CONSTRAINT message_count_deltas_event_check CHECK ((event = ANY (ARRAY['accepted'::text, 'received'::text, 'sent'::text, 'delivered'::text, 'failed'::text, 'undelivered'::text, 'cancelled'::text])))
);

CREATE TABLE message_counts (
  account_id uuid NOT NULL,
  bucket timestamp with time zone NOT NULL,
  event text NOT NULL,
  country text NOT NULL,
  category text NOT NULL,
  campaign_id uuid NOT NULL,
  connector_id uuid NOT NULL,
  error_code text NOT NULL,
  ttd smallint NOT NULL,
  messages bigint NOT NULL,
  segments bigint NOT NULL,
  CONSTRAINT message_counts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT message_counts_event_check CHECK ((event = ANY (ARRAY['accepted'::text, 'received'::text, 'sent'::text, 'delivered'::text, 'failed'::text, 'undelivered'::text, 'cancelled'::text]))),
  CONSTRAINT message_counts_pkey PRIMARY KEY (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd)
);

CREATE TABLE message_counts_hourly (
  account_id uuid NOT NULL,
  bucket timestamp with time zone NOT NULL,
  event text NOT NULL,
  country text NOT NULL,
  category text NOT NULL,
  campaign_id uuid NOT NULL,
  connector_id uuid NOT NULL,
  error_code text NOT NULL,
  ttd smallint NOT NULL,
  messages bigint NOT NULL,
  segments bigint NOT NULL,
  CONSTRAINT message_counts_event_check CHECK ((event = ANY (ARRAY['accepted'::text, 'received'::text, 'sent'::text, 'delivered'::text, 'failed'::text, 'undelivered'::text, 'cancelled'::text]))),
  CONSTRAINT message_counts_hourly_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT message_counts_hourly_pkey PRIMARY KEY (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd)
);

CREATE TABLE messages (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  campaign_id uuid,
  job_id uuid,
  recipient text NOT NULL,
  sender text NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'scheduled'::text,
  scheduled_at timestamp with time zone,
  sent_at timestamp with time zone,
  delivered_at timestamp with time zone,
  cancelled_at timestamp with time zone,
  provider_message_id text,
  segments integer NOT NULL,
  encoding text NOT NULL,
  error_code text,
  error_message text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  direction text NOT NULL DEFAULT 'outbound'::text,
  received_at timestamp with time zone,
  incomplete boolean NOT NULL DEFAULT false,
  bypasses_opt_out boolean NOT NULL DEFAULT false,
  submitted_at timestamp with time zone,
  submitted_via text,
  outcome_unknown_at timestamp with time zone,
  unknown_resent_at timestamp with time zone,
  valid_until timestamp with time zone,
  category text NOT NULL DEFAULT 'transactional'::text,
  priority text NOT NULL DEFAULT 'normal'::text,
  deferred_until timestamp with time zone,
  test boolean NOT NULL DEFAULT false,
  batch_id uuid,
  reference text,
  metadata jsonb,
  sent_body text,
  connector_id uuid,
  attempts jsonb,
  waiting_for text,
  sender_pool_id uuid,
  country text,
  smpp_id bigint,
  smpp_receipt text,
  price_amount bigint,
  price_per_segment bigint,
  price_currency text,
  template_id uuid,
  failed_at timestamp with time zone,
  CONSTRAINT messages_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT messages_body_length CHECK (((direction = 'inbound'::text) OR (length(body) <= 1600))),
  CONSTRAINT messages_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES campaigns(id) ON DELETE SET NULL,
  CONSTRAINT messages_category_check CHECK ((category = ANY (ARRAY['transactional'::text, 'marketing'::text]))),
  CONSTRAINT messages_check CHECK (((status = 'cancelled'::text) = (cancelled_at IS NOT NULL))),
  CONSTRAINT messages_direction_check CHECK ((direction = ANY (ARRAY['outbound'::text, 'inbound'::text]))),
  CONSTRAINT messages_direction_shape CHECK (
CASE direction
    WHEN 'inbound'::text THEN ((status = 'received'::text) AND (received_at IS NOT NULL))
    ELSE ((status <> 'received'::text) AND (job_id IS NOT NULL) AND (scheduled_at IS NOT NULL))
END),
  CONSTRAINT messages_encoding_check CHECK ((encoding = ANY (ARRAY['GSM-7'::text, 'UCS-2'::text]))),
  CONSTRAINT messages_failed_at_check CHECK (((status <> ALL (ARRAY['failed'::text, 'undelivered'::text])) OR (failed_at IS NOT NULL))),
  CONSTRAINT messages_pkey PRIMARY KEY (id),
  CONSTRAINT messages_priority_check CHECK ((priority = ANY (ARRAY['high'::text, 'normal'::text, 'low'::text]))),
  CONSTRAINT messages_recipient_check CHECK ((recipient ~ '^\+[1-9][0-9]{6,14}$'::text)),
  CONSTRAINT messages_reference_check CHECK (((length(reference) >= 1) AND (length(reference) <= 128))),
  CONSTRAINT messages_segments_check CHECK ((segments >= 1)),
  CONSTRAINT messages_smpp_receipt_check CHECK ((smpp_receipt = ANY (ARRAY['uuid'::text, 'hex'::text, 'decimal'::text]))),
  CONSTRAINT messages_status_check CHECK ((status = ANY (ARRAY['scheduled'::text, 'sending'::text, 'sent'::text, 'delivered'::text, 'failed'::text, 'undelivered'::text, 'cancelled'::text, 'received'::text]))),
  CONSTRAINT messages_waiting_for_check CHECK ((waiting_for = 'connector'::text))
);

CREATE TABLE numbers (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  phone_number text NOT NULL,
  name text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  self_service boolean NOT NULL DEFAULT false,
  CONSTRAINT numbers_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT numbers_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT numbers_phone_number_check CHECK ((phone_number ~ '^\+[1-9][0-9]{6,14}$'::text)),
  CONSTRAINT numbers_phone_number_key UNIQUE (phone_number),
  CONSTRAINT numbers_pkey PRIMARY KEY (id)
);

CREATE TABLE operator_settings (
  singleton boolean NOT NULL DEFAULT true,
  require_two_factor boolean NOT NULL DEFAULT false,
  CONSTRAINT operator_settings_pkey PRIMARY KEY (singleton),
  CONSTRAINT operator_settings_singleton_check CHECK (singleton)
);

CREATE TABLE opt_outs (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  phone text NOT NULL,
  source text NOT NULL,
  keyword text,
  message_id uuid,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT opt_outs_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT opt_outs_check CHECK (((source = 'keyword'::text) = (keyword IS NOT NULL))),
  CONSTRAINT opt_outs_id_key UNIQUE (id),
  CONSTRAINT opt_outs_phone_check CHECK ((phone ~ '^\+[1-9][0-9]{6,14}$'::text)),
  CONSTRAINT opt_outs_pkey PRIMARY KEY (account_id, phone),
  CONSTRAINT opt_outs_source_check CHECK ((source = ANY (ARRAY['keyword'::text, 'api'::text])))
);

CREATE TABLE password_resets (
  token_hash bytea NOT NULL,
  user_id uuid NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT password_resets_pkey PRIMARY KEY (token_hash),
  CONSTRAINT password_resets_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);

CREATE TABLE price_lists (
  name text NOT NULL,
  currency text NOT NULL,
  entries jsonb NOT NULL,
  default_price bigint,
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT price_lists_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
  CONSTRAINT price_lists_default_price_check CHECK ((default_price >= 0)),
  CONSTRAINT price_lists_pkey PRIMARY KEY (name)
);

CREATE TABLE rate_buckets (
  bucket text NOT NULL,
  tat timestamp with time zone NOT NULL,
  CONSTRAINT rate_buckets_pkey PRIMARY KEY (bucket)
);

CREATE TABLE rate_limits (
  key_id text NOT NULL,
  tat timestamp with time zone NOT NULL,
  CONSTRAINT rate_limits_key_id_fkey FOREIGN KEY (key_id) REFERENCES api_keys(key_id) ON DELETE CASCADE,
  CONSTRAINT rate_limits_pkey PRIMARY KEY (key_id)
);

CREATE TABLE receipt_handoffs (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  handed_to text NOT NULL,
  handed_until timestamp with time zone NOT NULL,
  account_ids uuid[] NOT NULL,
  delivery_ids uuid[] NOT NULL,
  CONSTRAINT receipt_handoffs_check CHECK ((cardinality(account_ids) = cardinality(delivery_ids))),
  CONSTRAINT receipt_handoffs_pkey PRIMARY KEY (id)
);

CREATE TABLE routing_table (
  singleton boolean NOT NULL DEFAULT true,
  version integer NOT NULL,
  routes jsonb NOT NULL,
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT routing_table_pkey PRIMARY KEY (singleton),
  CONSTRAINT routing_table_singleton_check CHECK (singleton)
);

CREATE TABLE sender_books (
  account_id uuid NOT NULL,
  sender text NOT NULL,
  last_used double precision NOT NULL DEFAULT 0,
  tat double precision NOT NULL DEFAULT 0,
  CONSTRAINT sender_books_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT sender_books_pkey PRIMARY KEY (account_id, sender)
);

CREATE TABLE sender_pools (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  senders text[] NOT NULL,
  sticky boolean NOT NULL DEFAULT true,
  max_per_sender_per_second integer,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT sender_pools_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT sender_pools_max_per_sender_per_second_check CHECK ((max_per_sender_per_second >= 1)),
  CONSTRAINT sender_pools_name_key UNIQUE (account_id, name),
  CONSTRAINT sender_pools_pkey PRIMARY KEY (id),
  CONSTRAINT sender_pools_senders_check CHECK (((cardinality(senders) >= 1) AND (cardinality(senders) <= 100)))
);

CREATE TABLE sign_in_failures (
  address text NOT NULL,
  failures integer NOT NULL,
  window_start timestamp with time zone NOT NULL,
  CONSTRAINT sign_in_failures_pkey PRIMARY KEY (address)
);

CREATE TABLE sign_in_locks (
  email text NOT NULL,
  failures integer NOT NULL,
  locked_until timestamp with time zone,
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT sign_in_locks_pkey PRIMARY KEY (email)
);

CREATE TABLE simulator_submissions (
  id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
  message_id uuid NOT NULL,
  provider_message_id text NOT NULL,
  recipient text NOT NULL,
  outcome text NOT NULL,
  submitted_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT simulator_submissions_pkey PRIMARY KEY (id)
);

CREATE TABLE smpp_binds (
  system_id text NOT NULL,
  server_id text NOT NULL,
  session_id text NOT NULL,
  account_id uuid NOT NULL,
  mode text NOT NULL,
  remote_address text NOT NULL,
  bound_at timestamp with time zone NOT NULL DEFAULT now(),
  seen_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT smpp_binds_mode_check CHECK ((mode = ANY (ARRAY['transmitter'::text, 'receiver'::text, 'transceiver'::text]))),
  CONSTRAINT smpp_binds_pkey PRIMARY KEY (server_id, session_id),
  CONSTRAINT smpp_binds_system_id_fkey FOREIGN KEY (system_id) REFERENCES smpp_credentials(system_id) ON DELETE CASCADE
);

CREATE TABLE smpp_credentials (
  system_id text NOT NULL,
  account_id uuid NOT NULL,
  password_hash text NOT NULL,
  max_binds integer NOT NULL DEFAULT 4,
  submits_per_second integer NOT NULL DEFAULT 50,
  window_size integer NOT NULL DEFAULT 10,
  allowed_ips text[] NOT NULL DEFAULT '{}'::text[],
  message_id_format text NOT NULL DEFAULT 'uuid'::text,
  test boolean NOT NULL DEFAULT false,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  system_id_key text,
  failed_binds integer NOT NULL DEFAULT 0,
  failures_since timestamp with time zone,
  locked_until timestamp with time zone,
  CONSTRAINT smpp_credentials_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT smpp_credentials_max_binds_check CHECK (((max_binds >= 1) AND (max_binds <= 20))),
  CONSTRAINT smpp_credentials_message_id_format_check CHECK ((message_id_format = ANY (ARRAY['uuid'::text, 'hex'::text, 'decimal'::text]))),
  CONSTRAINT smpp_credentials_pkey PRIMARY KEY (system_id),
  CONSTRAINT smpp_credentials_submits_per_second_check CHECK ((submits_per_second >= 1)),
  CONSTRAINT smpp_credentials_system_id_check CHECK (((length(system_id) >= 1) AND (length(system_id) <= 15))),
  CONSTRAINT smpp_credentials_window_size_check CHECK ((window_size >= 1))
);

CREATE TABLE smpp_outbox (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  message_id uuid NOT NULL,
  kind text NOT NULL,
  receipt_id text,
  sender text,
  recipient text,
  status text NOT NULL,
  error_code text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  leased_by text,
  lease_until timestamp with time zone,
  CONSTRAINT smpp_outbox_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT smpp_outbox_kind_check CHECK ((kind = ANY (ARRAY['receipt'::text, 'inbound'::text]))),
  CONSTRAINT smpp_outbox_pkey PRIMARY KEY (id)
);

CREATE TABLE smpp_segments (
  segment_id text NOT NULL,
  message_id uuid NOT NULL,
  provider_message_id text NOT NULL,
  seq integer NOT NULL,
  total integer NOT NULL,
  stat text,
  err text,
  id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
  segment_key text DEFAULT COALESCE(NULLIF(lower(ltrim(segment_id, '0'::text)), ''::text), '0'::text),
  CONSTRAINT smpp_segments_check CHECK ((total >= seq)),
  CONSTRAINT smpp_segments_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE,
  CONSTRAINT smpp_segments_pkey PRIMARY KEY (id),
  CONSTRAINT smpp_segments_seq_check CHECK ((seq >= 1))
);

CREATE TABLE smpp_server_counters (
  server_id text NOT NULL,
  account_id uuid NOT NULL,
  accepted bigint NOT NULL DEFAULT 0,
  refused bigint NOT NULL DEFAULT 0,
  throttled bigint NOT NULL DEFAULT 0,
  written_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT smpp_server_counters_pkey PRIMARY KEY (server_id, account_id)
);

CREATE TABLE smpp_submit_parts (
  account_id uuid NOT NULL,
  part_key text NOT NULL,
  seq integer NOT NULL,
  total integer NOT NULL,
  body text NOT NULL,
  message_id uuid NOT NULL,
  smpp_id bigint,
  receipt text,
  sender text NOT NULL,
  recipient text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT smpp_submit_parts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT smpp_submit_parts_pkey PRIMARY KEY (account_id, part_key, seq),
  CONSTRAINT smpp_submit_parts_receipt_check CHECK ((receipt = ANY (ARRAY['uuid'::text, 'hex'::text, 'decimal'::text]))),
  CONSTRAINT smpp_submit_parts_total_check CHECK (((total >= 2) AND (total <= 255)))
);

CREATE TABLE spend_counts (
  account_id uuid NOT NULL,
  bucket timestamp with time zone NOT NULL,
  event text NOT NULL,
  country text NOT NULL,
  category text NOT NULL,
  campaign_id uuid NOT NULL,
  connector_id uuid NOT NULL,
  spend bigint NOT NULL,
  CONSTRAINT spend_counts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT spend_counts_event_check CHECK ((event = ANY (ARRAY['sent'::text, 'delivered'::text]))),
  CONSTRAINT spend_counts_pkey PRIMARY KEY (account_id, bucket, event, country, category, campaign_id, connector_id)
);

CREATE TABLE spend_deltas (
  account_id uuid NOT NULL,
  bucket timestamp with time zone NOT NULL,
  event text NOT NULL,
  country text NOT NULL,
  category text NOT NULL,
  campaign_id uuid NOT NULL,
  connector_id uuid NOT NULL,
  spend bigint NOT NULL,
  CONSTRAINT spend_deltas_event_check CHECK ((event = ANY (ARRAY['sent'::text, 'delivered'::text])))
);

CREATE TABLE templates (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  body text NOT NULL,
  category text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT templates_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT templates_category_check CHECK ((category = ANY (ARRAY['marketing'::text, 'transactional'::text]))),
  CONSTRAINT templates_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT templates_pkey PRIMARY KEY (id)
);

CREATE TABLE throttled_sends (
  message_id uuid NOT NULL,
  account_id uuid NOT NULL,
  priority smallint NOT NULL,
  scheduled_at timestamp with time zone NOT NULL,
  segments integer NOT NULL,
  valid_until timestamp with time zone,
  held_at timestamp with time zone NOT NULL DEFAULT now(),
  released_at timestamp with time zone,
  send_at timestamp with time zone,
  CONSTRAINT throttled_sends_paid CHECK (((released_at IS NULL) = (send_at IS NULL))),
  CONSTRAINT throttled_sends_pkey PRIMARY KEY (message_id),
  CONSTRAINT throttled_sends_priority_check CHECK (((priority >= 0) AND (priority <= 2))),
  CONSTRAINT throttled_sends_segments_check CHECK ((segments >= 1))
);

CREATE TABLE throughput_buckets (
  key text NOT NULL,
  tat timestamp with time zone NOT NULL,
  CONSTRAINT throughput_buckets_pkey PRIMARY KEY (key)
);

CREATE TABLE unmatched_receipts (
  id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
  link text NOT NULL,
  provider_message_id text NOT NULL,
  status text NOT NULL,
  error_code text,
  error_message text,
  destination text NOT NULL,
  submitted_minute timestamp with time zone,
  text_prefix text,
  at timestamp with time zone NOT NULL,
  received_at timestamp with time zone NOT NULL DEFAULT now(),
  job_kind text,
  job_payload jsonb,
  CONSTRAINT unmatched_receipts_check CHECK (((job_kind IS NULL) = (job_payload IS NULL))),
  CONSTRAINT unmatched_receipts_pkey PRIMARY KEY (id)
);

CREATE TABLE unrouted_messages (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  sender text NOT NULL,
  recipient text NOT NULL,
  body text NOT NULL,
  segments integer NOT NULL,
  encoding text NOT NULL,
  incomplete boolean NOT NULL DEFAULT false,
  received_at timestamp with time zone NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT unrouted_messages_encoding_check CHECK ((encoding = ANY (ARRAY['GSM-7'::text, 'UCS-2'::text]))),
  CONSTRAINT unrouted_messages_pkey PRIMARY KEY (id),
  CONSTRAINT unrouted_messages_segments_check CHECK ((segments >= 1))
);

CREATE TABLE user_invitations (
  token_hash bytea NOT NULL,
  user_id uuid NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT user_invitations_pkey PRIMARY KEY (token_hash),
  CONSTRAINT user_invitations_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);

CREATE TABLE user_sessions (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  token_hash bytea NOT NULL,
  user_id uuid NOT NULL,
  csrf_token text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  last_seen_at timestamp with time zone NOT NULL DEFAULT now(),
  user_agent text,
  address text,
  CONSTRAINT user_sessions_pkey PRIMARY KEY (id),
  CONSTRAINT user_sessions_token_hash_key UNIQUE (token_hash),
  CONSTRAINT user_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);

CREATE TABLE users (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid,
  email text NOT NULL,
  role text NOT NULL,
  password_hash text,
  failed_sign_ins integer NOT NULL DEFAULT 0,
  locked_until timestamp with time zone,
  totp_secret text,
  totp_enabled boolean NOT NULL DEFAULT false,
  totp_last_step bigint,
  recovery_codes text[] NOT NULL DEFAULT '{}'::text[],
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  last_sign_in_at timestamp with time zone,
  CONSTRAINT users_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT users_check CHECK (((account_id IS NULL) = (role = ANY (ARRAY['operator'::text, 'auditor'::text])))),
  CONSTRAINT users_email_check CHECK (((email = lower(email)) AND ((length(email) >= 3) AND (length(email) <= 254)))),
  CONSTRAINT users_pkey PRIMARY KEY (id),
  CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'developer'::text, 'viewer'::text, 'operator'::text, 'auditor'::text])))
);

CREATE TABLE webhook_deliveries (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  webhook_id uuid NOT NULL,
  account_id uuid NOT NULL,
  message_id uuid,
  event text NOT NULL,
  seq integer NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending'::text,
  parked boolean NOT NULL DEFAULT false,
  attempts jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  finished_at timestamp with time zone,
  handed_to text,
  handed_until timestamp with time zone,
  handoff_id uuid,
  gave_up boolean NOT NULL DEFAULT false,
  awaits_batch boolean NOT NULL DEFAULT false,
  CONSTRAINT webhook_deliveries_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT webhook_deliveries_check CHECK (((NOT parked) OR (status = 'pending'::text))),
  CONSTRAINT webhook_deliveries_check1 CHECK (((status = 'pending'::text) = (finished_at IS NULL))),
  CONSTRAINT webhook_deliveries_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE,
  CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text]))),
  CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE
);

CREATE TABLE webhooks (
  id uuid NOT NULL DEFAULT gen_uuid_v7(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  url text NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  consecutive_failures integer NOT NULL DEFAULT 0,
  failing_since timestamp with time zone,
  disabled_at timestamp with time zone,
  disabled_reason text,
  events text[] NOT NULL DEFAULT '{dlr.sent,dlr.delivered,dlr.failed,dlr.undelivered}'::text[],
  batch_max_events integer,
  batch_max_delay_ms integer,
  batch_held_by text,
  batch_held_until timestamp with time zone,
  batch_retry_at timestamp with time zone,
  CONSTRAINT webhooks_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  CONSTRAINT webhooks_batch_max_delay_ms_check CHECK (((batch_max_delay_ms >= 0) AND (batch_max_delay_ms <= 60000))),
  CONSTRAINT webhooks_batch_max_events_check CHECK (((batch_max_events >= 1) AND (batch_max_events <= 1000))),
  CONSTRAINT webhooks_batch_whole CHECK (((batch_max_events IS NULL) = (batch_max_delay_ms IS NULL))),
  CONSTRAINT webhooks_consecutive_failures_check CHECK ((consecutive_failures >= 0)),
  CONSTRAINT webhooks_disabled_reason CHECK (((disabled_at IS NULL) = (disabled_reason IS NULL))),
  CONSTRAINT webhooks_events_check CHECK ((cardinality(events) >= 1)),
  CONSTRAINT webhooks_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
  CONSTRAINT webhooks_pkey PRIMARY KEY (id),
  CONSTRAINT webhooks_secret_check CHECK ((secret ~~ 'whsec\_%'::text))
);

CREATE UNIQUE INDEX account_balances_pkey ON account_balances USING btree (account_id);
CREATE UNIQUE INDEX account_daily_usage_pkey ON account_daily_usage USING btree (account_id, day);
CREATE UNIQUE INDEX account_settings_pkey ON account_settings USING btree (account_id);
CREATE UNIQUE INDEX accounts_name_fold_key ON accounts USING btree (name_key);
CREATE UNIQUE INDEX accounts_name_key ON accounts USING btree (name);
CREATE UNIQUE INDEX accounts_pkey ON accounts USING btree (id);
CREATE INDEX accounts_price_list_idx ON accounts USING btree (price_list) WHERE (price_list IS NOT NULL);
CREATE INDEX api_keys_account_idx ON api_keys USING btree (account_id);
CREATE INDEX api_keys_active_idx ON api_keys USING btree (account_id, created_at DESC) WHERE (revoked_at IS NULL);
CREATE INDEX api_keys_created_by_idx ON api_keys USING btree (created_by_user_id) WHERE ((created_by_user_id IS NOT NULL) AND (revoked_at IS NULL));
CREATE UNIQUE INDEX api_keys_pkey ON api_keys USING btree (key_id);
CREATE INDEX audit_events_account_idx ON audit_events USING btree (account_id, created_at DESC, id DESC);
CREATE INDEX audit_events_created_idx ON audit_events USING btree (created_at DESC, id DESC);
CREATE UNIQUE INDEX audit_events_pkey ON audit_events USING btree (id);
CREATE UNIQUE INDEX auto_replies_pkey ON auto_replies USING btree (account_id, phone, kind);
CREATE UNIQUE INDEX auto_reply_counts_pkey ON auto_reply_counts USING btree (account_id, phone, window_start);
CREATE INDEX batches_account_idx ON batches USING btree (account_id, created_at);
CREATE UNIQUE INDEX batches_pkey ON batches USING btree (id);
CREATE INDEX bodies_awaiting_erasure_account_idx ON bodies_awaiting_erasure USING btree (account_id);
CREATE UNIQUE INDEX bodies_awaiting_erasure_pkey ON bodies_awaiting_erasure USING btree (message_id);
CREATE UNIQUE INDEX campaign_recipients_pkey ON campaign_recipients USING btree (campaign_id, seq);
CREATE UNIQUE INDEX campaign_reservations_pkey ON campaign_reservations USING btree (account_id, campaign_id);
CREATE INDEX campaigns_account_page_idx ON campaigns USING btree (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX campaigns_pkey ON campaigns USING btree (id);
CREATE UNIQUE INDEX connector_states_pkey ON connector_states USING btree (connector_id, worker_id);
CREATE UNIQUE INDEX connectors_name_key ON connectors USING btree (name);
CREATE UNIQUE INDEX connectors_pkey ON connectors USING btree (id);
CREATE INDEX contact_groups_group_idx ON contact_groups USING btree (account_id, group_id, contact_id);
CREATE UNIQUE INDEX contact_groups_pkey ON contact_groups USING btree (contact_id, group_id);
CREATE INDEX contacts_account_page_idx ON contacts USING btree (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX contacts_account_phone_key ON contacts USING btree (account_id, phone);
CREATE UNIQUE INDEX contacts_pkey ON contacts USING btree (id);
CREATE INDEX contacts_tags_idx ON contacts USING gin (tags);
CREATE INDEX conversations_account_page_idx ON conversations USING btree (account_id, last_received_at DESC, id DESC);
CREATE UNIQUE INDEX conversations_account_phone_key ON conversations USING btree (account_id, phone);
CREATE UNIQUE INDEX conversations_pkey ON conversations USING btree (id);
CREATE UNIQUE INDEX groups_account_name_key ON groups USING btree (account_id, lower(name));
CREATE UNIQUE INDEX groups_pkey ON groups USING btree (id);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys USING btree (created_at);
CREATE UNIQUE INDEX idempotency_keys_pkey ON idempotency_keys USING btree (account_id, key);
CREATE INDEX inbound_parts_assembled_idx ON inbound_parts USING btree (assembled_at) WHERE (assembled_at IS NOT NULL);
CREATE UNIQUE INDEX inbound_parts_pkey ON inbound_parts USING btree (sender, recipient, reference, total, seq);
CREATE INDEX inbound_parts_waiting_idx ON inbound_parts USING btree (received_at) WHERE (assembled_at IS NULL);
CREATE INDEX jobs_account_claim_idx ON jobs USING btree (account_id, priority DESC, run_at DESC, id DESC) WHERE ((state = ANY (ARRAY['available'::text, 'retryable'::text])) AND (kind <> 'deliver_receipt'::text));
CREATE INDEX jobs_connector_pin_idx ON jobs USING btree (connector_id) WHERE (connector_id IS NOT NULL);
CREATE INDEX jobs_finalized_idx ON jobs USING btree (finalized_at) WHERE (finalized_at IS NOT NULL);
CREATE INDEX jobs_lane_priority_claim_idx ON jobs USING btree ((
CASE
    WHEN (kind = 'deliver_receipt'::text) THEN 'receipts'::text
    ELSE 'default'::text
END), priority, run_at, id) WHERE (state = ANY (ARRAY['available'::text, 'retryable'::text]));
CREATE INDEX jobs_lease_idx ON jobs USING btree (locked_until) WHERE (state = 'running'::text);
CREATE UNIQUE INDEX jobs_pkey ON jobs USING btree (id);
CREATE UNIQUE INDEX ledger_entries_once_idx ON ledger_entries USING btree (account_id, message_id, reason) WHERE (message_id IS NOT NULL);
CREATE UNIQUE INDEX ledger_entries_pkey ON ledger_entries USING btree (account_id, id);
CREATE UNIQUE INDEX message_count_deltas_key ON message_count_deltas USING btree (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, backend);
CREATE INDEX message_counts_bucket_idx ON message_counts USING btree (bucket);
CREATE UNIQUE INDEX message_counts_pkey ON message_counts USING btree (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd);
CREATE UNIQUE INDEX message_counts_hourly_pkey ON message_counts_hourly USING btree (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd);
CREATE INDEX messages_account_page_idx ON messages USING btree (account_id, created_at DESC, id DESC);
CREATE INDEX messages_batch_page_idx ON messages USING btree (batch_id, created_at DESC, id DESC) WHERE (batch_id IS NOT NULL);
CREATE INDEX messages_campaign_page_idx ON messages USING btree (campaign_id, created_at DESC, id DESC) WHERE (campaign_id IS NOT NULL);
CREATE INDEX messages_cancelled_page_idx ON messages USING btree (account_id, created_at DESC, id DESC) WHERE (cancelled_at IS NOT NULL);
CREATE INDEX messages_carrier_key_idx ON messages USING btree (carrier_id_key(provider_message_id)) WHERE (provider_message_id IS NOT NULL);
CREATE INDEX messages_failed_page_idx ON messages USING btree (account_id, created_at DESC, id DESC) WHERE (failed_at IS NOT NULL);
CREATE INDEX messages_inbound_page_idx ON messages USING btree (account_id, created_at DESC, id DESC) WHERE (direction = 'inbound'::text);
CREATE INDEX messages_outcome_unknown_idx ON messages USING btree (recipient) WHERE (outcome_unknown_at IS NOT NULL);
CREATE INDEX messages_pending_page_idx ON messages USING btree (account_id, created_at DESC, id DESC) WHERE ((direction = 'outbound'::text) AND (sent_at IS NULL) AND (failed_at IS NULL) AND (cancelled_at IS NULL));
CREATE UNIQUE INDEX messages_pkey ON messages USING btree (id);
CREATE INDEX messages_recipient_page_idx ON messages USING btree (account_id, recipient, created_at DESC, id DESC) WHERE (direction = 'outbound'::text);
CREATE INDEX messages_reference_page_idx ON messages USING btree (account_id, reference, created_at DESC, id DESC) WHERE (reference IS NOT NULL);
CREATE INDEX messages_sender_page_idx ON messages USING btree (account_id, sender, created_at DESC, id DESC) WHERE (direction = 'inbound'::text);
CREATE INDEX numbers_account_page_idx ON numbers USING btree (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX numbers_phone_number_key ON numbers USING btree (phone_number);
CREATE UNIQUE INDEX numbers_pkey ON numbers USING btree (id);
CREATE UNIQUE INDEX operator_settings_pkey ON operator_settings USING btree (singleton);
CREATE INDEX opt_outs_account_page_idx ON opt_outs USING btree (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX opt_outs_id_key ON opt_outs USING btree (id);
CREATE UNIQUE INDEX opt_outs_pkey ON opt_outs USING btree (account_id, phone);
CREATE UNIQUE INDEX password_resets_pkey ON password_resets USING btree (token_hash);
CREATE INDEX password_resets_user_idx ON password_resets USING btree (user_id);
CREATE UNIQUE INDEX price_lists_pkey ON price_lists USING btree (name);
CREATE UNIQUE INDEX rate_buckets_pkey ON rate_buckets USING btree (bucket);
CREATE UNIQUE INDEX rate_limits_pkey ON rate_limits USING btree (key_id);
CREATE UNIQUE INDEX receipt_handoffs_pkey ON receipt_handoffs USING btree (id);
CREATE UNIQUE INDEX routing_table_pkey ON routing_table USING btree (singleton);
CREATE UNIQUE INDEX sender_books_pkey ON sender_books USING btree (account_id, sender);
CREATE UNIQUE INDEX sender_pools_name_key ON sender_pools USING btree (account_id, name);
CREATE UNIQUE INDEX sender_pools_pkey ON sender_pools USING btree (id);
CREATE UNIQUE INDEX sign_in_failures_pkey ON sign_in_failures USING btree (address);
CREATE UNIQUE INDEX sign_in_locks_pkey ON sign_in_locks USING btree (email);
CREATE INDEX simulator_submissions_message_idx ON simulator_submissions USING btree (message_id);
CREATE UNIQUE INDEX simulator_submissions_pkey ON simulator_submissions USING btree (id);
CREATE UNIQUE INDEX smpp_binds_pkey ON smpp_binds USING btree (server_id, session_id);
CREATE INDEX smpp_binds_system_idx ON smpp_binds USING btree (system_id, seen_at);
CREATE INDEX smpp_credentials_account_idx ON smpp_credentials USING btree (account_id, created_at);
CREATE UNIQUE INDEX smpp_credentials_pkey ON smpp_credentials USING btree (system_id);
CREATE UNIQUE INDEX smpp_credentials_system_id_fold_key ON smpp_credentials USING btree (system_id_key);
CREATE INDEX smpp_outbox_account_idx ON smpp_outbox USING btree (account_id, id);
CREATE UNIQUE INDEX smpp_outbox_pkey ON smpp_outbox USING btree (id);
CREATE INDEX smpp_segments_key_idx ON smpp_segments USING btree (segment_key, id DESC);
CREATE INDEX smpp_segments_message_idx ON smpp_segments USING btree (message_id);
CREATE UNIQUE INDEX smpp_segments_pkey ON smpp_segments USING btree (id);
CREATE INDEX smpp_segments_segment_idx ON smpp_segments USING btree (segment_id, id DESC);
CREATE UNIQUE INDEX smpp_server_counters_pkey ON smpp_server_counters USING btree (server_id, account_id);
CREATE INDEX smpp_submit_parts_age_idx ON smpp_submit_parts USING btree (created_at);
CREATE UNIQUE INDEX smpp_submit_parts_pkey ON smpp_submit_parts USING btree (account_id, part_key, seq);
CREATE UNIQUE INDEX spend_counts_pkey ON spend_counts USING btree (account_id, bucket, event, country, category, campaign_id, connector_id);
CREATE UNIQUE INDEX templates_account_name_key ON templates USING btree (account_id, lower(name));
CREATE INDEX templates_account_page_idx ON templates USING btree (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX templates_pkey ON templates USING btree (id);
CREATE INDEX throttled_sends_account_order_idx ON throttled_sends USING btree (account_id, priority, scheduled_at, message_id) WHERE (released_at IS NULL);
CREATE UNIQUE INDEX throttled_sends_pkey ON throttled_sends USING btree (message_id);
CREATE INDEX throttled_sends_released_idx ON throttled_sends USING btree (released_at) WHERE (released_at IS NOT NULL);
CREATE INDEX throttled_sends_valid_until_idx ON throttled_sends USING btree (valid_until) WHERE (valid_until IS NOT NULL);
CREATE UNIQUE INDEX throughput_buckets_pkey ON throughput_buckets USING btree (key);
CREATE UNIQUE INDEX unmatched_receipts_once_idx ON unmatched_receipts USING btree (link, destination, provider_message_id, status);
CREATE UNIQUE INDEX unmatched_receipts_pkey ON unmatched_receipts USING btree (id);
CREATE INDEX unmatched_receipts_provider_id_idx ON unmatched_receipts USING btree (provider_message_id);
CREATE INDEX unmatched_receipts_received_idx ON unmatched_receipts USING btree (received_at);
CREATE INDEX unrouted_messages_page_idx ON unrouted_messages USING btree (created_at DESC, id DESC);
CREATE UNIQUE INDEX unrouted_messages_pkey ON unrouted_messages USING btree (id);
CREATE UNIQUE INDEX user_invitations_pkey ON user_invitations USING btree (token_hash);
CREATE INDEX user_invitations_user_idx ON user_invitations USING btree (user_id);
CREATE UNIQUE INDEX user_sessions_pkey ON user_sessions USING btree (id);
CREATE UNIQUE INDEX user_sessions_token_hash_key ON user_sessions USING btree (token_hash);
CREATE INDEX user_sessions_user_idx ON user_sessions USING btree (user_id, created_at);
CREATE UNIQUE INDEX users_account_email ON users USING btree (account_id, email) NULLS NOT DISTINCT;
CREATE INDEX users_account_idx ON users USING btree (account_id, created_at);
CREATE UNIQUE INDEX users_active_email ON users USING btree (email) WHERE (password_hash IS NOT NULL);
CREATE UNIQUE INDEX users_pkey ON users USING btree (id);
CREATE INDEX webhook_deliveries_batch_waiting_idx ON webhook_deliveries USING btree (webhook_id, created_at, id) WHERE awaits_batch;
CREATE INDEX webhook_deliveries_failed_page_idx ON webhook_deliveries USING btree (webhook_id, created_at DESC, id DESC) WHERE gave_up;
CREATE INDEX webhook_deliveries_handed_idx ON webhook_deliveries USING btree (handed_until) WHERE (handed_to IS NOT NULL);
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries USING btree (message_id, webhook_id, seq);
CREATE INDEX webhook_deliveries_parked_idx ON webhook_deliveries USING btree (message_id, webhook_id, seq) WHERE parked;
CREATE UNIQUE INDEX webhook_deliveries_pkey ON webhook_deliveries USING btree (id);
CREATE INDEX webhook_deliveries_webhook_page_idx ON webhook_deliveries USING btree (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhooks_account_idx ON webhooks USING btree (account_id, created_at);
CREATE INDEX webhooks_batched_idx ON webhooks USING btree (id) WHERE (batch_max_events IS NOT NULL);
CREATE INDEX webhooks_disabled_idx ON webhooks USING btree (disabled_at) WHERE (disabled_at IS NOT NULL);
CREATE UNIQUE INDEX webhooks_pkey ON webhooks USING btree (id);

CREATE TRIGGER campaign_recipients_account_id BEFORE INSERT ON campaign_recipients FOR EACH ROW WHEN ((new.account_id IS NULL)) EXECUTE FUNCTION campaign_recipients_account_id();
CREATE TRIGGER message_counts_added AFTER INSERT ON message_counts REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_hourly_added();
CREATE TRIGGER message_counts_changed AFTER UPDATE ON message_counts REFERENCING OLD TABLE AS before NEW TABLE AS after FOR EACH STATEMENT EXECUTE FUNCTION count_hourly_changed();
CREATE TRIGGER messages_counted AFTER INSERT ON messages REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION count_stored_messages();
CREATE TRIGGER refund_unsent_message AFTER UPDATE OF status ON messages FOR EACH ROW WHEN (((new.price_amount IS NOT NULL) AND (NOT new.test) AND (new.status = ANY (ARRAY['cancelled'::text, 'failed'::text, 'undelivered'::text])) AND (old.status IS DISTINCT FROM new.status))) EXECUTE FUNCTION refund_unsent_message();
CREATE TRIGGER smpp_outbox_inbound AFTER INSERT ON messages FOR EACH ROW WHEN ((new.direction = 'inbound'::text)) EXECUTE FUNCTION smpp_outbox_inbound();
CREATE TRIGGER smpp_outbox_receipt AFTER UPDATE OF status ON messages FOR EACH ROW WHEN (((new.smpp_receipt IS NOT NULL) AND (new.status = ANY (ARRAY['delivered'::text, 'undelivered'::text, 'failed'::text])) AND (old.status IS DISTINCT FROM new.status))) EXECUTE FUNCTION smpp_outbox_receipt();

CREATE OR REPLACE FUNCTION campaign_recipients_account_id()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      NEW.account_id := (SELECT account_id FROM campaigns WHERE id = NEW.campaign_id);
      RETURN NEW;
    END
    $function$;

CREATE OR REPLACE FUNCTION carrier_id_key(id text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT coalesce(nullif(lower(ltrim(id, '0')), ''), '0') $function$;

CREATE OR REPLACE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision)
 RETURNS TABLE(jobs json, next_due_in_ms double precision)
 LANGUAGE sql
AS $function$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(ARRAY(
             SELECT l.id FROM (VALUES ('default'), ('receipts')) AS ln(lane) CROSS JOIN (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = ln.lane
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit))

    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),

         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM (VALUES ('default'), ('receipts')) AS ln(lane) CROSS JOIN (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = ln.lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$function$;

CREATE OR REPLACE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
 RETURNS TABLE(jobs json, next_due_in_ms double precision)
 LANGUAGE sql
AS $function$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(ARRAY(
             SELECT l.id FROM  (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit))

    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),

         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM  (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$function$;

CREATE OR REPLACE FUNCTION claim_jobs_v6(p_limit integer, p_worker text, p_lease_seconds double precision, p_after uuid, p_connectors uuid[])
 RETURNS TABLE(jobs json, next_due_in_ms double precision, last_account uuid)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
DECLARE
  v_ids uuid[];          -- the jobs taken, in the order they are handed to the worker
  v_rest int;            -- what is left of the window for the accounts' shares
  v_accounts uuid[];     -- the due accounts, in ring order
  v_weights int[];
  v_shares int[];
  v_bounded boolean := false; -- the ring stopped at its visit bound: more due accounts may be waiting
  v_r_ids uuid[];        -- the accounts' jobs read, with their account's ring place and rank in the account
  v_r_ords int[];
  v_r_ranks int[];
  v_spare int;
  v_last uuid;
BEGIN
  -- 1. Timed jobs of every account, oldest first.
  v_ids := ARRAY(
    SELECT id FROM jobs
     WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = 'default' AND (connector_id IS NULL OR connector_id = ANY (p_connectors)) AND priority = -1 AND run_at <= now()
     ORDER BY run_at, id
     LIMIT p_limit
     FOR UPDATE SKIP LOCKED);
  -- 2. Jobs without an account yet, at most half of the window.
  v_ids := v_ids || ARRAY(
    SELECT id FROM jobs
     WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id IS NULL AND run_at <= now()
     ORDER BY priority, run_at, id
     LIMIT greatest(0, least(p_limit - cardinality(v_ids), (p_limit + 1) / 2))
     FOR UPDATE SKIP LOCKED);
  v_rest := p_limit - cardinality(v_ids);

  IF v_rest > 0 THEN
    -- 3. The ring: the accounts with waiting jobs after the cursor, then from the start up to it; the first
    --    v_rest with a due job. A scalar subquery tests each, not EXISTS: a semi-join would sort the whole ring.
    WITH RECURSIVE ring(account_id, n, wrapped) AS (
      SELECT coalesce(s.a, (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > '00000000-0000-0000-0000-000000000000'::uuid ORDER BY account_id LIMIT 1)), 1, s.a IS NULL
        FROM (SELECT (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > coalesce(p_after, '00000000-0000-0000-0000-000000000000'::uuid) ORDER BY account_id LIMIT 1) AS a) s
      UNION ALL
      SELECT nx.a, r.n + 1, nx.wrapped
        FROM ring r
       CROSS JOIN LATERAL (SELECT (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > r.account_id ORDER BY account_id LIMIT 1) AS a) f
       CROSS JOIN LATERAL (SELECT CASE WHEN f.a IS NULL AND NOT r.wrapped THEN (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > '00000000-0000-0000-0000-000000000000'::uuid ORDER BY account_id LIMIT 1) ELSE f.a END AS a,
                                  r.wrapped OR f.a IS NULL AS wrapped) nx
       WHERE r.account_id IS NOT NULL AND nx.a IS NOT NULL AND r.n < 4 * p_limit
         AND NOT (nx.wrapped AND nx.a > coalesce(p_after, '00000000-0000-0000-0000-000000000000'::uuid))),
    due AS (
      SELECT r.account_id, r.n FROM ring r
       WHERE r.account_id IS NOT NULL
         AND (SELECT true FROM jobs
               WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND (connector_id IS NULL OR connector_id = ANY (p_connectors)) AND account_id = r.account_id AND priority = ANY ('{0,1,2}'::smallint[]) AND run_at <= now()
               LIMIT 1)
       LIMIT v_rest)
    SELECT array_agg(d.account_id ORDER BY d.n),
           array_agg(coalesce((SELECT a.weight FROM accounts a WHERE a.id = d.account_id), 1) ORDER BY d.n),
           CASE WHEN count(*) < v_rest THEN EXISTS (SELECT 1 FROM ring WHERE n = 4 * p_limit) ELSE false END
      INTO v_accounts, v_weights, v_bounded
      FROM due d;

    IF v_accounts IS NOT NULL THEN
      -- 4. Shares by weight, at least one job each; first round: each account's due jobs up to its share.
      v_shares := ARRAY(SELECT greatest(1, v_rest * u.w / t.total)::int
                          FROM unnest(v_weights) WITH ORDINALITY u(w, i), (SELECT sum(x) AS total FROM unnest(v_weights) x) t
                         ORDER BY u.i);
      SELECT coalesce(array_agg(x.id), '{}'), coalesce(array_agg(x.ord), '{}'), coalesce(array_agg(x.rank), '{}')
        INTO v_r_ids, v_r_ords, v_r_ranks
        FROM (SELECT l.id, a.ord::int AS ord,
                     row_number() OVER (PARTITION BY a.ord ORDER BY l.priority, l.run_at, l.id)::int AS rank
                FROM unnest(v_accounts, v_shares) WITH ORDINALITY AS a(account_id, share, ord)
               CROSS JOIN LATERAL (
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND (connector_id IS NULL OR connector_id = ANY (p_connectors)) AND account_id = a.account_id AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT a.share
              FOR UPDATE SKIP LOCKED) x
           LIMIT a.share) l) x;
      -- 5. What accounts with fewer due jobs left, offered to those that filled their share.
      v_spare := v_rest - cardinality(v_r_ids);
      IF v_spare > 0 THEN
        SELECT v_r_ids || coalesce(array_agg(x.id), '{}'), v_r_ords || coalesce(array_agg(x.ord), '{}'),
               v_r_ranks || coalesce(array_agg(x.rank), '{}')
          INTO v_r_ids, v_r_ords, v_r_ranks
          FROM (SELECT y.id, a.ord::int AS ord,
                       (a.share + row_number() OVER (PARTITION BY a.ord ORDER BY y.priority, y.run_at, y.id))::int AS rank
                  FROM unnest(v_accounts, v_shares) WITH ORDINALITY AS a(account_id, share, ord)
                 CROSS JOIN LATERAL (
                   SELECT z.* FROM (
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND (connector_id IS NULL OR connector_id = ANY (p_connectors)) AND account_id = a.account_id AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT a.share + v_spare
              FOR UPDATE SKIP LOCKED) x
           LIMIT a.share + v_spare) z
                    ORDER BY z.priority, z.run_at, z.id OFFSET a.share) y
                 WHERE cardinality(array_positions(v_r_ords, a.ord::int)) = a.share) x;
      END IF;
      -- 6. Weighted fair queuing inside the window: by rank in the account ÷ its weight, then ring place.
      SELECT v_ids || coalesce(array_agg(c.id ORDER BY c.rank::float8 / v_weights[c.ord], c.ord, c.rank), '{}'),
             v_accounts[max(c.ord)]
        INTO v_ids, v_last
        FROM (SELECT u.id, u.ord, u.rank FROM unnest(v_r_ids, v_r_ords, v_r_ranks) AS u(id, ord, rank)
               ORDER BY u.rank::float8 / v_weights[u.ord], u.ord, u.rank
               LIMIT v_rest) c;
    END IF;
  END IF;
  -- 7. Room the accounts left: more jobs without an account.
  IF cardinality(v_ids) < p_limit THEN
    v_ids := v_ids || ARRAY(
      SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id IS NULL AND run_at <= now() AND id <> ALL(v_ids)
       ORDER BY priority, run_at, id
       LIMIT p_limit - cardinality(v_ids)
       FOR UPDATE SKIP LOCKED);
  END IF;

  RETURN QUERY
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END,
           connector_id = NULL
     WHERE j.id = ANY(v_ids)
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.account_id AS "accountId")
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY array_position(v_ids, c.id)), '[]') FROM claimed c),
         CASE WHEN v_bounded THEN 0::double precision
              ELSE (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
                      FROM (VALUES (-1::smallint), (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
                     CROSS JOIN LATERAL (
                       SELECT run_at FROM jobs
                        WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = 'default' AND priority = p.priority AND run_at > now()
                        ORDER BY run_at
                        LIMIT 1) n) END,
         v_last;
END
$function$;

CREATE OR REPLACE FUNCTION count_hourly_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      
  INSERT INTO message_counts_hourly AS c (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, messages, segments)
  SELECT account_id, to_timestamp(floor(extract(epoch FROM bucket) / 3600) * 3600), event, country, category, campaign_id, connector_id, error_code, ttd, sum(messages), sum(segments)
    FROM (SELECT account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, messages, segments FROM added) d
   GROUP BY account_id, to_timestamp(floor(extract(epoch FROM bucket) / 3600) * 3600), event, country, category, campaign_id, connector_id, error_code, ttd
  ON CONFLICT (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd) DO UPDATE
     SET messages = c.messages + excluded.messages, segments = c.segments + excluded.segments;
      RETURN NULL;
    END $function$;

CREATE OR REPLACE FUNCTION count_hourly_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      
  INSERT INTO message_counts_hourly AS c (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, messages, segments)
  SELECT account_id, to_timestamp(floor(extract(epoch FROM bucket) / 3600) * 3600), event, country, category, campaign_id, connector_id, error_code, ttd, sum(messages), sum(segments)
    FROM (SELECT n.account_id, n.bucket, n.event, n.country, n.category, n.campaign_id, n.connector_id, n.error_code, n.ttd, n.messages - o.messages AS messages, n.segments - o.segments AS segments
                       FROM after n JOIN before o USING (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd)) d
   GROUP BY account_id, to_timestamp(floor(extract(epoch FROM bucket) / 3600) * 3600), event, country, category, campaign_id, connector_id, error_code, ttd
  ON CONFLICT (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd) DO UPDATE
     SET messages = c.messages + excluded.messages, segments = c.segments + excluded.segments;
      RETURN NULL;
    END $function$;

CREATE OR REPLACE FUNCTION count_stored_messages()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF current_setting('sms.stored_counted', true) = 'on' THEN RETURN NULL; END IF;
    INSERT INTO message_count_deltas (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, messages, segments)
    SELECT account_id, to_timestamp(floor(extract(epoch FROM CASE WHEN direction = 'inbound' THEN received_at ELSE created_at END) / 900) * 900) AS bucket,
           CASE WHEN direction = 'inbound' THEN 'received' ELSE 'accepted' END AS event,
           coalesce(country, '') AS country, CASE WHEN direction = 'inbound' THEN '' ELSE category END AS category,
           coalesce(campaign_id, '00000000-0000-0000-0000-000000000000'::uuid) AS campaign_id, '00000000-0000-0000-0000-000000000000'::uuid AS connector_id, '' AS error_code, (-1)::smallint AS ttd,
           count(*) AS messages, sum(segments) AS segments
      FROM stored WHERE NOT test
     GROUP BY 1, 2, 3, 4, 5, 6;
    RETURN NULL;
  END $function$;

CREATE OR REPLACE FUNCTION gen_uuid_v7()
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
      SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
               PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
               FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
    $function$;

CREATE OR REPLACE FUNCTION job_account_of(p_kind text, p_payload jsonb)
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$
      SELECT CASE p_kind
        WHEN 'send_message' THEN (SELECT account_id FROM messages WHERE id = (p_payload->>'messageId')::uuid)
        WHEN 'deliver_receipt' THEN (SELECT account_id FROM webhook_deliveries WHERE id = (p_payload->>'deliveryId')::uuid)
        WHEN 'campaign_fanout' THEN (SELECT account_id FROM campaigns WHERE id = (p_payload->>'campaignId')::uuid)
        WHEN 'provider_report' THEN (SELECT account_id FROM messages
                                      WHERE carrier_id_key(provider_message_id) = carrier_id_key(p_payload->>'providerMessageId')
                                        AND provider_message_id = p_payload->>'providerMessageId'
                                      ORDER BY created_at DESC LIMIT 1)
      END
    $function$;

CREATE OR REPLACE FUNCTION refund_unsent_message()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    END $function$;

CREATE OR REPLACE FUNCTION smpp_outbox_inbound()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF EXISTS (SELECT FROM smpp_credentials WHERE account_id = NEW.account_id) THEN
        INSERT INTO smpp_outbox (account_id, message_id, kind, status) VALUES (NEW.account_id, NEW.id, 'inbound', NEW.status);
      END IF;
      RETURN NULL;
    END $function$;

CREATE OR REPLACE FUNCTION smpp_outbox_receipt()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      INSERT INTO smpp_outbox (account_id, message_id, kind, status, error_code)
      VALUES (NEW.account_id, NEW.id, 'receipt', NEW.status, NEW.error_code);
      RETURN NULL;
    END $function$;
