import type { Logger } from 'pino';
import { claimExistingAppNames } from '@iot/command/app/names.ts';
import { claimExistingDictCodes } from '@iot/command/dict/codes.ts';
import { claimExistingTopoElementNames } from '@iot/command/diagram/names.ts';
import { seedBuiltinMenus } from '@iot/command/menu/builtin.ts';
import { provisionAllTenants } from '@iot/command/role/builtin.ts';
import { claimExistingRoleNames } from '@iot/command/role/names.ts';
import { claimExistingEmails, claimExistingPhones, claimExistingUsernames } from '@iot/command/user/usernames.ts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { ProjectionRunner } from '@iot/projections/index.ts';
import type { Config } from '../config.ts';
import type { AppContext } from '../http/context.ts';
import { DEMO_TENANT, seedDemoData, seedSystemAdmin } from '../seed.ts';
import { seedDemoOta } from '../seed-ota.ts';
import { demoFleetDevices } from '../seed-fleet.ts';
import { demoReadings, startSimulator } from '../simulator.ts';
import type { Stops } from './stops.ts';

/**
 * What a start seeds: the system administrator and the menu catalogue; with the projections, the built-in roles
 * of every tenant, the demo tenant when asked (with its OTA file and a finished rollout when `ota` gives the dispatch
 * port and the file store), and claims for names made before claims existed.
 */
export async function seedAtStart(
  context: AppContext,
  lookups: Lookups,
  runner: ProjectionRunner,
  seeds: { projections: boolean; demo: boolean; ota?: { dispatch: Dispatch; files: FileStore | null } },
): Promise<{ generatedAdminPassword: string | null }> {
  const { db, store, config, logger } = context;
  // Names of users created before claims existed are claimed by their users.
  await claimExistingUsernames(db, lookups);
  const generatedAdminPassword = await seedSystemAdmin(context, config.ADMIN_PASSWORD);
  await seedBuiltinMenus(store);
  if (seeds.projections) {
    // Seeding reads the read models; a long log still being projected must not stop the start.
    await runner.catchUp(30_000).catch((error: Error) => logger.warn({ err: error }, 'projections still catching up'));
    await provisionAllTenants(store, lookups);
    if (seeds.demo) await seedDemoData(context);
    if (seeds.demo && seeds.ota) {
      // The rollout targets the demo fleet's sensors: the devices' read model must have them.
      await runner.catchUp(30_000).catch((error: Error) => logger.warn({ err: error }, 'projections still catching up'));
      await seedDemoOta({ store, lookups, ...seeds.ota }, DEMO_TENANT.id);
    }
    // Names and codes of rows made before claims existed are claimed by their rows.
    await claimExistingRoleNames(db, lookups);
    await claimExistingDictCodes(db, lookups);
    await claimExistingAppNames(db, lookups);
    await claimExistingEmails(db, lookups);
    await claimExistingPhones(db, lookups);
    await claimExistingTopoElementNames(db, lookups);
  }
  return { generatedAdminPassword };
}

/** A newcomer's first start shows live values: the demo fleet publishes over the embedded broker. */
export async function startDemoSimulator(brokerUrl: string, runner: ProjectionRunner, logger: Logger, stops: Stops): Promise<void> {
  await runner.catchUp(10_000).catch(() => undefined);
  const simulator = await startSimulator({
    url: brokerUrl,
    devices: demoFleetDevices(),
    readings: demoReadings,
    intervalMs: 5_000,
    onError: (err) => logger.debug({ err }, 'demo simulator'),
  });
  stops.push(() => simulator.stop());
}

/** Whether this start seeds the demo tenant: asked, or DEMO_DATA, or by default on the embedded engines. */
export const seedsDemo = (config: Config, runsProjections: boolean, asked: boolean | undefined) =>
  runsProjections && (asked ?? (config.DEMO_DATA ? config.DEMO_DATA === 'true' : !config.DATABASE_URL));
