import {
  DomainError,
  type DeviceEvent,
  type DeviceLocation,
  type DeviceRoutes,
  type NodeType,
  type ProductEvent,
  type ThingFunction,
  type TimelineEntry,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { streamName, type EventStore, type StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import { sameValue } from '@iot/contracts/same-value.ts';
import { assertInStation } from '../shared/station.ts';
import { readStreamOf } from '../shared/streams.ts';
import { usernamesById } from '@iot/projections/user/read.ts';

/** What an auditor sees of a device: every field but its secret, which shows only as rotated or not. */
type DeviceView = {
  sn: string | null;
  name: string | null;
  productId: string | null;
  modelVersion: number;
  nodeType: NodeType | null;
  groupId: string | null;
  gatewayId: string | null;
  location: DeviceLocation;
  version: string | null;
  tags: string[];
  remark: string | null;
  enabled: boolean;
  templateId: string | null;
  /** A secret rotated after creation (every device is created with one). */
  secretRotated: boolean;
  online: boolean;
  deleted: boolean;
};
/** A device as its stream tells an auditor, once created. */
interface DeviceSeen {
  exists: boolean;
  view: DeviceView;
}

const unseen: DeviceSeen = {
  exists: false,
  view: {
    sn: null,
    name: null,
    productId: null,
    modelVersion: 0,
    nodeType: null,
    groupId: null,
    gatewayId: null,
    location: { lng: null, lat: null, address: null },
    version: null,
    tags: [],
    remark: null,
    enabled: true,
    templateId: null,
    secretRotated: false,
    online: false,
    deleted: false,
  },
};

function evolveDevice(state: DeviceSeen, event: DeviceEvent): DeviceSeen {
  const change = (fields: Partial<DeviceView>): DeviceSeen => ({ exists: state.exists, view: { ...state.view, ...fields } });
  switch (event.type) {
    case 'DeviceCreated': {
      const { deviceId: _id, secretHash: _hash, ...fields } = event.data;
      return { exists: true, view: { ...unseen.view, ...fields } };
    }
    case 'DeviceUpdated': {
      const { deviceId: _id, ...fields } = event.data;
      return change(fields);
    }
    case 'DeviceMoved':
      return change({ groupId: event.data.groupId });
    case 'DeviceGatewayBound':
      return change({ gatewayId: event.data.gatewayId });
    case 'DeviceSecretRotated':
      return change({ secretRotated: true });
    case 'DeviceEnabled':
      return change({ enabled: true });
    case 'DeviceDisabled':
      return change({ enabled: false });
    case 'DeviceTemplateApplied':
      return change({ templateId: event.data.templateId });
    case 'DeviceModelUpgraded':
      return change({ modelVersion: event.data.modelVersion });
    case 'DeviceDeleted':
      return change({ deleted: true });
    case 'DeviceWentOnline':
      return change({ online: true });
    case 'DeviceWentOffline':
      return change({ online: false });
    default:
      // Commands, their replies and desired values are the device's history, not its fields.
      return state;
  }
}

/** A product's name and thing model as its stream tells them: the draft and every published version. */
interface ProductModel {
  exists: boolean;
  deleted: boolean;
  name: string | null;
  published: boolean;
  functions: ThingFunction[];
  /** By version (1-based). */
  versions: ThingFunction[][];
}
const noProduct: ProductModel = { exists: false, deleted: false, name: null, published: false, functions: [], versions: [] };

function evolveProduct(state: ProductModel, event: ProductEvent): ProductModel {
  switch (event.type) {
    case 'ProductCreated':
      return { ...noProduct, exists: true, name: event.data.fields.name, functions: event.data.functions };
    case 'ProductUpdated':
      return { ...state, name: event.data.fields.name };
    case 'ProductFunctionDefined': {
      const fn = event.data.function;
      const at = state.functions.findIndex((f) => f.identifier === fn.identifier);
      return { ...state, functions: at < 0 ? [...state.functions, fn] : state.functions.map((f, i) => (i === at ? fn : f)) };
    }
    case 'ProductFunctionRemoved':
      return { ...state, functions: state.functions.filter((f) => f.identifier !== event.data.identifier) };
    case 'ProductThingModelImported':
      return { ...state, functions: event.data.functions };
    case 'ProductPublished':
      // A version published again (unchanged draft) is not a new version.
      return {
        ...state,
        published: true,
        versions: event.data.version > state.versions.length ? [...state.versions, event.data.functions] : state.versions,
      };
    case 'ProductUnpublished':
      return { ...state, published: false };
    case 'ProductDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

/** The thing model a device bound to `modelVersion` reports against: that version, or the draft before any publication. */
const boundModel = (product: ProductModel, modelVersion: number): ThingFunction[] | undefined =>
  modelVersion > 0 ? product.versions[modelVersion - 1] : product.functions;

const productAt = async (store: EventStore, tenantId: string, productId: string, toTime?: Date) =>
  (await readStreamOf<ProductEvent>(store, streamName('product', tenantId, productId), toTime ? { toTime } : {})).reduce(
    evolveProduct,
    noProduct,
  );

/** The group a device's stream leaves it in (its last one, once deleted): what the caller's station narrows by. */
export const groupOfDevice = (history: StoredEventOf<DeviceEvent>[]): string | null => history.reduce(evolveDevice, unseen).view.groupId;

/** A live device of the caller's tenant and station: its events, and the thing model it reports against now. */
export async function deviceWithModel(ctx: RequestContext, deviceId: string) {
  const { store } = ctx.ports;
  const { tenantId } = callerOf(ctx);
  const history = await readStreamOf<DeviceEvent>(store, streamName('device', tenantId, deviceId));
  const device = history.reduce(evolveDevice, unseen);
  if (!device.exists || device.view.deleted) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, device.view.groupId);
  const product = await productAt(store, tenantId, device.view.productId!);
  return { history, functions: boundModel(product, device.view.modelVersion) ?? [] };
}

/** The fields an event changed: before and after, by field, as an auditor reads them. */
function changesOf(before: Record<string, unknown>, after: Record<string, unknown>) {
  return Object.keys({ ...before, ...after })
    .filter((field) => !sameValue(before[field] ?? null, after[field] ?? null))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

/** A device's history, newest first: who changed what, with each changed field before and after. */
async function deviceTimeline(ctx: RequestContext, deviceId: string): Promise<TimelineEntry[]> {
  const history = await readStreamOf<DeviceEvent>(ctx.ports.store, streamName('device', callerOf(ctx).tenantId, deviceId));
  if (history.length === 0) throw new DomainError('NOT_FOUND');
  await assertInStation(ctx, groupOfDevice(history));
  const names = await usernamesById(ctx.ports.db, [...new Set(history.map((e) => e.metadata.actor.id))]);
  let state = unseen;
  const entries: TimelineEntry[] = [];
  for (const event of history) {
    const next = evolveDevice(state, event);
    entries.push({
      version: event.version,
      eventType: event.type,
      occurredAt: event.metadata.occurredAt,
      actorKind: event.metadata.actor.kind,
      actorId: event.metadata.actor.id,
      actorName: names.get(event.metadata.actor.id) ?? null,
      changes: changesOf(state.exists ? state.view : {}, next.view),
    });
    state = next;
  }
  return entries.reverse();
}

/** Reads of a device's history: its timeline, and the device with its thing model as they were at an instant. */
export const deviceHistoryHandlers: Pick<Handlers<DeviceRoutes>, 'device.timeline' | 'device.asOf'> = {
  'device.timeline': ({ query }, ctx) => deviceTimeline(ctx, query.id),

  async 'device.asOf'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const at = new Date(query.at);
    const stream = streamName('device', tenantId, query.id);
    const [history, whole] = await Promise.all([
      readStreamOf<DeviceEvent>(ctx.ports.store, stream, { toTime: at }),
      readStreamOf<DeviceEvent>(ctx.ports.store, stream),
    ]);
    if (whole.length === 0) throw new DomainError('NOT_FOUND');
    // The station narrows by where the device is now, whatever the instant asked for.
    await assertInStation(ctx, groupOfDevice(whole));
    const device = history.reduce(evolveDevice, unseen);
    let product = null;
    if (device.exists && device.view.productId) {
      const p = await productAt(ctx.ports.store, tenantId, device.view.productId, at);
      const { modelVersion } = device.view;
      if (p.exists)
        product = {
          name: p.name!,
          status: p.deleted ? 'deleted' : p.published ? 'published' : 'unpublished',
          modelVersion,
          // The device reports against its bound version; before any publication, the draft of that instant.
          functions: boundModel(p, modelVersion) ?? p.functions,
        };
    }
    return {
      at: at.toISOString(),
      version: history.at(-1)?.version ?? 0,
      exists: device.exists && !device.view.deleted,
      device: device.exists ? device.view : null,
      product,
    };
  },
};
