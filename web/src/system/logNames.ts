import { useTranslation } from 'react-i18next';
// The device and alarm areas name their own events and targets: every screen showing log rows (the home page's
// recent operations too) shows them by name, whether or not one of those areas was opened first.
import '../fleet/i18n.ts';
import '../alarm/i18n.ts';
import type { OplogRow } from '@iot/contracts/identity/oplog.ts';
import { builtinRoleText } from '@iot/contracts/identity/role.ts';
import { builtinMenus, builtinNames, englishTitleOf } from '@iot/contracts/menu/catalogue.ts';

const menuTypes = new Map(builtinMenus.map((m) => [m.id, m.type]));
const builtinRoleNames = new Map(Object.values(builtinRoleText).map((text) => [text.zh.name, text]));

/** A built-in menu entry or role under the name it was created with is named in the user's language (as their screens do). */
export function builtinTargetName(kind: string, id: string, name: string, lang: string): string {
  if (lang !== 'en') return name;
  if (kind === 'menu' && builtinNames.get(id) === name) return englishTitleOf({ id, type: menuTypes.get(id) ?? 'menu' }) ?? name;
  if (kind === 'role') return builtinRoleNames.get(name)?.en.name ?? name;
  return name;
}

/** Who did it and to what, in the user's language: the operation log and the home page's recent operations. */
export function useLogNames() {
  const { t, i18n } = useTranslation();
  // The platform's own actors ('anonymous' for a visitor registering, 'seed' for the initial data) by their id.
  const actorOf = (row: Pick<OplogRow, 'actorName' | 'actorKind' | 'actorId'>) =>
    row.actorName ??
    (row.actorKind === 'system'
      ? t(`log.systemActor.${row.actorId}`, { defaultValue: row.actorId })
      : row.actorKind === 'device'
        ? t('log.deviceActor')
        : row.actorId);
  // A stream is 'kind-tenant.id' (menu-system.user): the kind, and the target's name or else the stream's last part.
  const targetOf = (row: Pick<OplogRow, 'stream' | 'targetName'>) => {
    const dash = row.stream.indexOf('-');
    const kind = dash > 0 ? row.stream.slice(0, dash) : '';
    const id = row.stream.slice(row.stream.indexOf('.') + 1);
    const name = row.targetName ? builtinTargetName(kind, id, row.targetName, i18n.language) : row.stream.slice(dash + 1);
    return { kind, name };
  };
  return { actorOf, targetOf };
}
