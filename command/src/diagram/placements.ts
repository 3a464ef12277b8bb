import { DomainError, type DiagramFields } from '@iot/contracts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';
import { claimMany, holdersOf, ownersByPrefix, releaseClaims, releaseClaimsBut, releaseMany, withClaim } from '../shared/claims.ts';

/**
 * A diagram placing a topo element is a claim (key `<element>/<diagram>`), and a topo element being deleted is one too,
 * so that a save and a delete at the same instant cannot both pass while the diagrams' read model lags: the save claims
 * its placements before it looks for a delete, the delete claims the element before it looks for placements, so at
 * least one of the two sees the other.
 */
const placementScope = (tenantId: string) => `topoElementPlacement:${tenantId}`;
const deletingScope = (tenantId: string) => `topoElementDeleting:${tenantId}`;
const placementKey = (elementId: string, diagramId: string) => `${elementId}/${diagramId}`;

/** Claims the placements of a diagram's elements, refuses an element being deleted, saves, then frees the placements it dropped. */
export async function withPlacements<T>(ctx: RequestContext, diagramId: string, fields: DiagramFields, save: () => Promise<T>): Promise<T> {
  const { tenantId } = callerOf(ctx);
  const db = ctx.ports.db;
  const elements = [...new Set(fields.widgets.flatMap((w) => (w.elementId ? [w.elementId] : [])))];
  const placements = elements.map((elementId) => ({ key: placementKey(elementId, diagramId), owner: diagramId }));
  const { took } = await claimMany(db, placementScope(tenantId), placements);
  try {
    if ((await holdersOf(db, deletingScope(tenantId), elements)).size > 0) throw new DomainError('NOT_FOUND', { field: 'elementId' });
    const result = await save();
    await releaseClaimsBut(
      db,
      placementScope(tenantId),
      diagramId,
      placements.map((p) => p.key),
    );
    return result;
  } catch (error) {
    await releaseMany(
      db,
      placementScope(tenantId),
      placements.filter((p) => took.has(p.key)),
    );
    throw error;
  }
}

/** A deleted diagram places nothing. */
export const releasePlacements = (ctx: RequestContext, diagramId: string) =>
  releaseClaims(ctx.ports.db, placementScope(callerOf(ctx).tenantId), diagramId);

/**
 * Deletes a topo element unless a diagram places it: `usedBy` gets the diagrams that do, from the read model and from
 * the placements claimed by saves it has not caught up with yet (by id: their names are not there yet).
 */
export async function withDeleting<T>(
  ctx: RequestContext,
  elementId: string,
  remove: (usedBy: readonly string[]) => Promise<T>,
): Promise<T> {
  const { tenantId } = callerOf(ctx);
  const db = ctx.ports.db;
  return withClaim(db, { scope: deletingScope(tenantId), key: elementId, owner: elementId }, 'CONFLICT', async () => {
    const named = await ctx.ports.lookups.diagramsUsingTopoElement(tenantId, elementId);
    const placing = await ownersByPrefix(db, placementScope(tenantId), `${elementId}/`);
    return remove(named.length > 0 ? named : placing);
  });
}
