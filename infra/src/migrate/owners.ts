import type { MigrationOwner } from '@iot/contracts/ports/migrations.ts';
import { credentialsSchema } from '@iot/command/auth/credentials.ts';
import { sessionsSchema } from '@iot/command/auth/sessions.ts';
import { throttleSchema } from '@iot/command/auth/throttle.ts';
import { logoSchema } from '@iot/command/settings/logos.ts';
import { claimsSchema } from '@iot/command/shared/claims.ts';
import { uploadReservationsSchema } from '@iot/command/file/quota.ts';
import { codesSchema } from '@iot/command/tenant/codes.ts';
import { usernameClaimsSchema } from '@iot/command/user/usernames.ts';
import { importJobsPerTenant, importSchema } from '@iot/command/device/import.ts';
import { mqttSecretsSchema } from '@iot/command/template/handlers.ts';
import { notifySecretsSchema } from '@iot/command/notify/settings.ts';
import { deadLettersSchema, reportsSchema, reportsSeenAt } from '@iot/ingest/tables.ts';
import {
  notifyInboxIndex,
  notifyInboxSchema,
  notifyAttachmentsSchema,
  notifyRateSchema,
  notifyRecordErrorClasses,
  notifyRecordsSchema,
} from '@iot/projections/alarm/outbox.ts';
import { alarmRuleStatesSchema } from '@iot/projections/alarm/reactor.ts';
import {
  forwardOutboxGroupedRows,
  forwardOutboxLeases,
  forwardOutboxMessageIds,
  forwardOutboxSchema,
  forwardOutboxWithoutMessageIndex,
} from '@iot/projections/forward/outbox.ts';
import { forwardSecretsSchema } from '@iot/command/forward/secrets.ts';
import { ruleChainRunsSchema, ruleJournalSchema } from '@iot/projections/rule/journal.ts';
import { statTaskRunsSchema } from '@iot/projections/stat/runs.ts';
import { reportSendingsSchema } from '@iot/projections/report/sendings.ts';
import { marketUsageSchema } from '@iot/projections/market/usage.ts';
import { statBackfillsSchema } from '@iot/projections/stat/backfill.ts';

const v1 = (owner: string, tables: string[], sql: string): MigrationOwner => ({
  owner,
  tables,
  migrations: [{ version: 1, name: 'create', sql }],
});

/** The command side's own tables (secrets, claims, throttles: not domain facts, never in the event log). */
export const commandOwners: MigrationOwner[] = [
  v1('auth.credentials', ['auth_credentials'], credentialsSchema),
  v1('auth.sessions', ['auth_sessions'], sessionsSchema),
  v1('auth.throttle', ['auth_login_failures'], throttleSchema),
  v1('tenant.codes', ['auth_verification_codes'], codesSchema),
  v1('user.usernames', ['username_claims'], usernameClaimsSchema),
  v1('claims', ['claims'], claimsSchema),
  v1('file.uploadReservations', ['file_upload_reservations'], uploadReservationsSchema),
  v1('settings.logos', ['settings_logos'], logoSchema),
  {
    owner: 'device.import',
    tables: ['device_import_jobs', 'device_import_faults'],
    migrations: [
      { version: 1, name: 'create', sql: importSchema },
      { version: 2, name: 'job ids per tenant', sql: importJobsPerTenant },
    ],
  },
  v1('device.mqttSecrets', ['mqtt_config_secrets'], mqttSecretsSchema),
  v1('ingest.deadLetters', ['ingest_dead_letters'], deadLettersSchema),
  {
    owner: 'ingest.reports',
    tables: ['device_reports'],
    migrations: [
      { version: 1, name: 'create', sql: reportsSchema },
      { version: 2, name: 'seen at', sql: reportsSeenAt },
    ],
  },
  {
    owner: 'notify.records',
    tables: ['notify_records', 'notify_storm'],
    migrations: [
      { version: 1, name: 'create', sql: notifyRecordsSchema },
      { version: 2, name: 'errors as classes', sql: notifyRecordErrorClasses },
    ],
  },
  v1('notify.secrets', ['notify_channel_secrets'], notifySecretsSchema),
  {
    owner: 'notify.inbox',
    tables: ['notify_inbox_reads', 'notify_inbox_marks'],
    migrations: [
      { version: 1, name: 'create', sql: notifyInboxSchema },
      { version: 2, name: 'in-app index', sql: notifyInboxIndex },
    ],
  },
  v1('alarm.ruleStates', ['alarm_rule_states'], alarmRuleStatesSchema),
  v1('notify.rate', ['notify_rate'], notifyRateSchema),
  v1('forward.secrets', ['forward_server_secrets'], forwardSecretsSchema),
  {
    owner: 'forward.outbox',
    tables: ['forward_outbox'],
    migrations: [
      { version: 1, name: 'create', sql: forwardOutboxSchema },
      { version: 2, name: 'message ids', sql: forwardOutboxMessageIds },
      { version: 3, name: 'leases by device', sql: forwardOutboxLeases },
      { version: 4, name: 'no message index, no row claims', sql: forwardOutboxWithoutMessageIndex },
      { version: 5, name: 'several messages of a device in a row', sql: forwardOutboxGroupedRows },
    ],
  },
  v1('stat.runs', ['stat_task_runs'], statTaskRunsSchema),
  {
    owner: 'rule.journal',
    tables: ['rule_failures', 'rule_debug_traces', 'rule_chain_runs'],
    migrations: [
      { version: 1, name: 'create', sql: ruleJournalSchema },
      { version: 2, name: 'chain runs', sql: ruleChainRunsSchema },
    ],
  },
  v1('report.sendings', ['report_sendings'], reportSendingsSchema),
  v1('market.usage', ['market_usage'], marketUsageSchema),
  v1('notify.attachments', ['notify_attachments'], notifyAttachmentsSchema),
  v1('stat.backfills', ['stat_backfills'], statBackfillsSchema),
];
