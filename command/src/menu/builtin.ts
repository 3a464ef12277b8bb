import { builtinMenus, SYSTEM_TENANT } from '@iot/contracts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import { handleCommand } from '../handler.ts';
import { menuDecider, menuStream } from './decide.ts';

/** Creates the built-in menus that do not exist yet; entries an administrator changed or deleted stay as they are. */
export async function seedBuiltinMenus(store: EventStore): Promise<number> {
  let created = 0;
  for (const { id, ...menu } of builtinMenus) {
    const result = await handleCommand(
      store,
      menuDecider,
      menuStream(id),
      { type: 'CreateMenu', menuId: id, builtin: true, menu },
      {
        tenantId: SYSTEM_TENANT,
        actor: { kind: 'system', id: 'seed' },
        idempotencyKey: 'builtin-menu',
      },
    );
    if (result.applied) created += 1;
  }
  return created;
}
