import { z } from "zod";
import { listQuery, page } from "../envelope.ts";
import { route } from "../http/route.ts";
import { entityId, idBody } from "../identity/common.ts";
import {
  bulkBody,
  bulkResult,
  deviceCreateBody,
  deviceListFilters,
  deviceRow,
  deviceSecretResult,
  deviceSortable,
  deviceStatuses,
  deviceUpdateBody,
  importQuery,
  importResult,
  mqttConfigFields,
  mqttConfigRow,
  mqttConfigSortable,
  mqttConfigUpdateBody,
  productCreateBody,
  productListQuery,
  productRow,
  productSortable,
  productUpdateBody,
  serialNumber,
  templateCreateBody,
  templateRow,
  templateSortable,
  templateUpdateBody,
  variableBody,
  variableRemoveBody,
} from "./model.ts";
import { devicePerm as p } from "./permissions.ts";
import { identifier, thingFunction } from "./thing-model.ts";

const idResult = z.object({ id: z.string() });
const csv = z.string().describe("CSV, UTF-8 with a byte order mark");
/** An instant in the past, ISO 8601 with its offset (PostgreSQL takes offsets up to ±15:59). */
const instant = z.iso
  .datetime({ offset: true })
  .refine(
    (v) => Number(/[+-](\d{2}):\d{2}$/.exec(v)?.[1] ?? 0) <= 15,
    "offset beyond ±15:59",
  );

const productDetail = productRow.extend({
  /** The draft thing model: what the next publication freezes. */
  functions: z.array(z.record(z.string(), z.unknown())),
  versions: z.array(
    z.object({
      version: z.number().int(),
      publishedAt: z.string(),
      publishedBy: z.string(),
      functionCount: z.number().int(),
    }),
  ),
});
const deviceDetail = deviceRow.extend({
  /** The thing model of the version the device reports against. */
  functions: z.array(z.record(z.string(), z.unknown())),
});

/** One change in a device's history: who, when, what, and the fields before and after. */
export const timelineEntry = z.object({
  version: z.number().int(),
  eventType: z.string(),
  occurredAt: z.string(),
  actorKind: z.string(),
  actorId: z.string(),
  actorName: z.string().nullable(),
  changes: z.array(
    z.object({ field: z.string(), before: z.unknown(), after: z.unknown() }),
  ),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

/** A device as it was at an instant, and its product's thing model as it was then. */
export const deviceAsOf = z.object({
  at: z.string(),
  /** The newest event at or before the instant (0: the device did not exist yet). */
  version: z.number().int(),
  exists: z.boolean(),
  device: z.record(z.string(), z.unknown()).nullable(),
  product: z
    .object({
      name: z.string(),
      status: z.string(),
      modelVersion: z.number().int(),
      functions: z.array(z.record(z.string(), z.unknown())),
    })
    .nullable(),
});
export const tenantAsOf = z.object({
  at: z.string(),
  events: z.number().int(),
  users: z.number().int(),
  roles: z.number().int(),
  groups: z.number().int(),
  products: z.number().int(),
  devices: z.number().int(),
  enabledDevices: z.number().int(),
  names: z.object({
    users: z.array(z.string()),
    roles: z.array(z.string()),
    groups: z.array(z.string()),
    products: z.array(z.string()),
  }),
});

/** Spec §2 "Device management" and §7 `device`, `product` and sub-paths (issue 10). */
export const deviceRoutes = {
  // ---- products and their thing models
  "product.list": route({
    method: "GET",
    path: "/api/iot/product",
    permission: p.productList,
    tag: "product",
    summary: "List products",
    query: listQuery(productSortable, productListQuery),
    response: page(productRow),
    reads: ["products"],
  }),
  "product.detail": route({
    method: "GET",
    path: "/api/iot/product/detail",
    permission: p.productList,
    tag: "product",
    summary: "A product with its draft thing model and published versions",
    query: idBody,
    response: productDetail,
    reads: ["products"],
    errors: ["NOT_FOUND"],
  }),
  "product.create": route({
    method: "POST",
    path: "/api/iot/product",
    permission: p.productAdd,
    tag: "product",
    summary: "Create a product (its key is generated)",
    body: productCreateBody,
    response: idResult,
    reads: ["products"],
    errors: ["PRODUCT_CODE_TAKEN"],
  }),
  "product.update": route({
    method: "PUT",
    path: "/api/iot/product",
    permission: p.productEdit,
    tag: "product",
    summary: "Edit a product's fields",
    body: productUpdateBody,
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND", "PRODUCT_CODE_TAKEN"],
  }),
  "product.delete": route({
    method: "DELETE",
    path: "/api/iot/product",
    permission: p.productDelete,
    tag: "product",
    summary: "Delete a product without devices",
    query: idBody,
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND", "PRODUCT_IN_USE"],
  }),
  "product.copy": route({
    method: "POST",
    path: "/api/iot/product/copy",
    permission: p.productAdd,
    tag: "product",
    summary:
      "Copy a product with its draft thing model under a new name and code",
    body: z
      .object({
        id: entityId,
        name: productCreateBody.shape.name,
        code: productCreateBody.shape.code,
      })
      .strict(),
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND", "PRODUCT_CODE_TAKEN"],
  }),
  "product.defineFunction": route({
    method: "PUT",
    path: "/api/iot/product/function",
    permission: p.productEdit,
    tag: "product",
    summary:
      "Add or change a function of the draft thing model (by identifier)",
    body: z
      .object({
        productId: entityId,
        function: thingFunction,
        replaces: identifier.optional(),
      })
      .strict(),
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND", "IDENTIFIER_TAKEN"],
  }),
  "product.removeFunction": route({
    method: "DELETE",
    path: "/api/iot/product/function",
    permission: p.productEdit,
    tag: "product",
    summary: "Remove a function from the draft thing model",
    query: z.object({ productId: entityId, identifier }).strict(),
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND"],
  }),
  "product.importModel": route({
    method: "POST",
    path: "/api/iot/product/model/import",
    permission: p.productEdit,
    tag: "product",
    summary:
      "Replace the draft thing model by a JSON file's; an invalid file is refused with the row and field of each fault",
    body: z.object({ productId: entityId, model: z.unknown() }).strict(),
    response: z.object({ id: z.string(), functions: z.number().int() }),
    reads: ["products"],
    errors: ["NOT_FOUND", "MODEL_INVALID"],
  }),
  "product.exportModel": route({
    method: "GET",
    path: "/api/iot/product/model/export",
    permission: p.productList,
    tag: "product",
    summary:
      "The thing model as a JSON file (the draft, or a published version)",
    query: z
      .object({
        id: entityId,
        version: z.coerce.number().int().min(1).optional(),
      })
      .strict(),
    produces: "application/json",
    response: z.string().describe("the thing model, JSON"),
    reads: ["products"],
    errors: ["NOT_FOUND"],
  }),
  "product.publish": route({
    method: "POST",
    path: "/api/iot/product/publish",
    permission: p.productPublish,
    tag: "product",
    summary: "Publish the draft thing model as the next version",
    body: idBody,
    response: z.object({ id: z.string(), version: z.number().int() }),
    reads: ["products"],
    errors: ["NOT_FOUND"],
  }),
  "product.unpublish": route({
    method: "POST",
    path: "/api/iot/product/unpublish",
    permission: p.productPublish,
    tag: "product",
    summary: "Take a product back to unpublished (its versions stay)",
    body: idBody,
    response: idResult,
    reads: ["products"],
    errors: ["NOT_FOUND"],
  }),

  // ---- devices
  "device.list": route({
    method: "GET",
    path: "/api/iot/device",
    permission: p.deviceList,
    tag: "device",
    summary:
      "List devices of the caller's group subtree (stationId), filtered and sorted",
    query: listQuery(deviceSortable, deviceListFilters),
    response: page(deviceRow),
    reads: ["devices"],
  }),
  "device.count": route({
    method: "GET",
    path: "/api/iot/device/count",
    permission: p.deviceList,
    tag: "device",
    summary: "Devices of the caller's group subtree by status",
    response: z.object({
      total: z.number().int(),
      online: z.number().int(),
      offline: z.number().int(),
      disabled: z.number().int(),
    }),
    reads: ["devices"],
    cache: "tenant",
  }),
  "device.groupCounts": route({
    method: "GET",
    path: "/api/iot/device/groupCounts",
    permission: p.deviceList,
    tag: "device",
    summary:
      "Devices of the caller's group subtree counted per group they are in directly (null: in no group), and how many are online",
    response: z.array(
      z.object({
        groupId: z.string().nullable(),
        total: z.number().int(),
        online: z.number().int(),
      }),
    ),
    reads: ["devices"],
    cache: "tenant",
  }),
  "device.detail": route({
    method: "GET",
    path: "/api/iot/device/detail",
    permission: p.deviceList,
    tag: "device",
    summary: "A device with the thing model it reports against",
    query: idBody,
    response: deviceDetail,
    reads: ["devices", "products"],
    errors: ["NOT_FOUND"],
  }),
  "device.create": route({
    method: "POST",
    path: "/api/iot/device",
    permission: p.deviceAdd,
    tag: "device",
    summary: "Register a device; its secret is in the answer, once",
    body: deviceCreateBody,
    response: deviceSecretResult,
    reads: ["devices"],
    errors: ["SN_TAKEN", "NOT_FOUND", "NOT_A_GATEWAY"],
  }),
  "device.update": route({
    method: "PUT",
    path: "/api/iot/device",
    permission: p.deviceEdit,
    tag: "device",
    summary:
      "Edit a device's name, location, version, tags, remark (and group)",
    body: deviceUpdateBody,
    response: idResult,
    reads: ["devices"],
    errors: ["NOT_FOUND"],
  }),
  "device.delete": route({
    method: "DELETE",
    path: "/api/iot/device",
    permission: p.deviceDelete,
    tag: "device",
    summary:
      "Delete a device (a gateway only once it has no sub-devices); its SN is free again",
    query: idBody,
    response: idResult,
    reads: ["devices"],
    errors: ["NOT_FOUND", "GATEWAY_HAS_DEVICES"],
  }),
  "device.rotateSecret": route({
    method: "POST",
    path: "/api/iot/device/secret",
    permission: p.deviceSecret,
    tag: "device",
    summary: "A new device secret, shown once; the old one stops working",
    body: idBody,
    response: deviceSecretResult,
    reads: ["devices"],
    errors: ["NOT_FOUND"],
  }),
  "device.enable": route({
    method: "POST",
    path: "/api/iot/device/enable",
    permission: p.deviceEdit,
    tag: "device",
    summary: "Enable a device",
    body: idBody,
    response: idResult,
    reads: ["devices"],
    errors: ["NOT_FOUND"],
  }),
  "device.disable": route({
    method: "POST",
    path: "/api/iot/device/disable",
    permission: p.deviceEdit,
    tag: "device",
    summary: "Disable a device: it can no longer connect",
    body: idBody,
    response: idResult,
    reads: ["devices"],
    errors: ["NOT_FOUND"],
  }),
  "device.move": route({
    method: "PUT",
    path: "/api/iot/device/group",
    permission: p.deviceEdit,
    tag: "device",
    summary: "Move a device to a group (null: out of every group)",
    body: z.object({ id: entityId, groupId: entityId.nullable() }).strict(),
    response: idResult,
    reads: ["devices"],
    errors: ["NOT_FOUND"],
  }),
  "device.upgradeModel": route({
    method: "POST",
    path: "/api/iot/device/model/upgrade",
    permission: p.deviceEdit,
    tag: "device",
    summary:
      "Bind a device to its product's newest published thing-model version",
    body: idBody,
    response: z.object({ id: z.string(), modelVersion: z.number().int() }),
    reads: ["devices"],
    errors: ["NOT_FOUND", "PRODUCT_NOT_PUBLISHED"],
  }),
  "device.bulk": route({
    method: "POST",
    path: "/api/iot/device/bulk",
    permission: p.deviceEdit,
    tag: "device",
    summary:
      "Delete, move, enable, disable or apply a template to many devices, with a result per device",
    body: bulkBody,
    response: bulkResult,
    reads: ["devices"],
  }),
  "device.import": route({
    method: "POST",
    path: "/api/iot/device/import",
    permission: p.deviceImport,
    tag: "device",
    summary:
      "Import devices from a CSV or XLSX file sent as the raw body (at most 50 MB), streamed; progress on the device.import channel; SN is the key, so a re-run creates nothing twice",
    query: importQuery,
    consumes: "file",
    response: importResult,
    reads: ["devices"],
    errors: [
      "FILE_TYPE",
      "FILE_EMPTY",
      "FILE_TOO_LARGE",
      "FILE_COLUMNS",
      "JOB_RUNNING",
    ],
  }),
  "device.importReport": route({
    method: "GET",
    path: "/api/iot/device/import/report",
    permission: p.deviceImport,
    tag: "device",
    summary:
      "An import's faults, one line per refused row: row, SN, field, reason",
    query: z.object({ jobId: importQuery.shape.jobId }).strict(),
    produces: "text/csv",
    response: csv,
    reads: [],
    errors: ["NOT_FOUND"],
  }),
  "device.importTemplate": route({
    method: "GET",
    path: "/api/iot/device/import/template",
    permission: p.deviceImport,
    tag: "device",
    summary:
      "The import file template (CSV with the columns and one example row)",
    produces: "text/csv",
    response: csv,
    reads: [],
  }),
  "device.export": route({
    method: "GET",
    path: "/api/iot/device/export",
    permission: p.deviceExport,
    tag: "device",
    summary:
      "The device list as CSV, with the filters of the list (and the caller group subtree)",
    query: listQuery(deviceSortable, deviceListFilters),
    produces: "text/csv",
    response: csv,
    reads: ["devices"],
  }),
  "device.timeline": route({
    method: "GET",
    path: "/api/iot/device/timeline",
    permission: p.deviceHistory,
    tag: "device",
    summary:
      "Who changed what on a device, newest first, with the fields before and after",
    query: idBody,
    response: z.array(timelineEntry),
    reads: ["users"],
    errors: ["NOT_FOUND"],
  }),
  "device.asOf": route({
    method: "GET",
    path: "/api/iot/device/asOf",
    permission: p.deviceHistory,
    tag: "device",
    summary:
      "A device and its product's thing model as they were at an instant, rebuilt from their streams",
    query: z.object({ id: entityId, at: instant }).strict(),
    response: deviceAsOf,
    reads: [],
    errors: ["NOT_FOUND"],
  }),
  "device.checkSn": route({
    method: "GET",
    path: "/api/iot/device/check",
    permission: p.deviceAdd,
    tag: "device",
    summary: "Is a serial number free",
    query: z.object({ sn: serialNumber }).strict(),
    response: z.object({ available: z.boolean() }),
    reads: ["devices"],
  }),

  // ---- gateways and their sub-devices
  "gateway.list": route({
    method: "GET",
    path: "/api/iot/gateway",
    permission: p.gatewayList,
    tag: "gateway",
    summary:
      "Gateways of the caller's group subtree with their sub-device counts",
    query: listQuery(deviceSortable, {
      name: deviceListFilters.name,
      sn: deviceListFilters.sn,
      status: z.enum(deviceStatuses).optional(),
      groupId: entityId.optional(),
    }),
    response: page(deviceRow),
    reads: ["devices"],
  }),
  "gateway.bind": route({
    method: "PUT",
    path: "/api/iot/gateway/sub",
    permission: p.gatewayEdit,
    tag: "gateway",
    summary:
      "Put devices behind a gateway, or take them out (gatewayId null), or move them to another gateway",
    body: z
      .object({
        gatewayId: entityId.nullable(),
        deviceIds: z.array(entityId).min(1).max(1000),
      })
      .strict(),
    response: bulkResult,
    reads: ["devices"],
    errors: ["NOT_FOUND", "NOT_A_GATEWAY"],
  }),

  // ---- templates and variables
  "template.list": route({
    method: "GET",
    path: "/api/iot/template",
    permission: p.templateList,
    tag: "template",
    summary: "List templates with their variables",
    query: listQuery(templateSortable, {
      name: z.string().trim().max(64).optional(),
      productId: entityId.optional(),
    }),
    response: page(templateRow),
    reads: ["templates"],
  }),
  "template.create": route({
    method: "POST",
    path: "/api/iot/template",
    permission: p.templateAdd,
    tag: "template",
    summary: "Create a template for a product",
    body: templateCreateBody,
    response: idResult,
    reads: ["templates"],
    errors: ["NOT_FOUND"],
  }),
  "template.update": route({
    method: "PUT",
    path: "/api/iot/template",
    permission: p.templateEdit,
    tag: "template",
    summary: "Edit a template's settings",
    body: templateUpdateBody,
    response: idResult,
    reads: ["templates"],
    errors: ["NOT_FOUND"],
  }),
  "template.delete": route({
    method: "DELETE",
    path: "/api/iot/template",
    permission: p.templateDelete,
    tag: "template",
    summary: "Delete a template",
    query: idBody,
    response: idResult,
    reads: ["templates"],
    errors: ["NOT_FOUND"],
  }),
  "template.defineVariable": route({
    method: "PUT",
    path: "/api/iot/template/variable",
    permission: p.templateEdit,
    tag: "template",
    summary:
      "Add or change a variable (by identifier, a property of the product's thing model)",
    body: variableBody,
    response: idResult,
    reads: ["templates"],
    errors: ["NOT_FOUND", "NOT_A_PROPERTY"],
  }),
  "template.removeVariable": route({
    method: "DELETE",
    path: "/api/iot/template/variable",
    permission: p.templateEdit,
    tag: "template",
    summary: "Remove a variable",
    query: variableRemoveBody,
    response: idResult,
    reads: ["templates"],
    errors: ["NOT_FOUND"],
  }),
  "template.apply": route({
    method: "POST",
    path: "/api/iot/template/apply",
    permission: p.templateApply,
    tag: "template",
    summary:
      "Apply a template to devices of its product (all of them when no ids are given)",
    body: z
      .object({
        id: entityId,
        deviceIds: z.array(entityId).max(1000).optional(),
      })
      .strict(),
    response: bulkResult,
    reads: ["devices", "templates"],
    errors: ["NOT_FOUND"],
  }),

  // ---- MQTT configs of gateways
  "mqttConfig.list": route({
    method: "GET",
    path: "/api/iot/device/mqttConfig",
    permission: p.mqttConfigList,
    tag: "mqttConfig",
    summary: "MQTT configs of gateways (passwords never shown)",
    query: listQuery(mqttConfigSortable, {
      gatewayId: entityId.optional(),
      name: z.string().trim().max(64).optional(),
    }),
    response: page(mqttConfigRow),
    reads: ["mqttConfigs"],
  }),
  "mqttConfig.create": route({
    method: "POST",
    path: "/api/iot/device/mqttConfig",
    permission: p.mqttConfigAdd,
    tag: "mqttConfig",
    summary: "Add an MQTT config to a gateway",
    body: mqttConfigFields,
    response: idResult,
    reads: ["mqttConfigs"],
    errors: ["NOT_FOUND", "NOT_A_GATEWAY"],
  }),
  "mqttConfig.update": route({
    method: "PUT",
    path: "/api/iot/device/mqttConfig",
    permission: p.mqttConfigEdit,
    tag: "mqttConfig",
    summary: "Edit an MQTT config (an empty password keeps the old one)",
    body: mqttConfigUpdateBody,
    response: idResult,
    reads: ["mqttConfigs"],
    errors: ["NOT_FOUND", "NOT_A_GATEWAY"],
  }),
  "mqttConfig.delete": route({
    method: "DELETE",
    path: "/api/iot/device/mqttConfig",
    permission: p.mqttConfigDelete,
    tag: "mqttConfig",
    summary: "Delete an MQTT config",
    query: idBody,
    response: idResult,
    reads: ["mqttConfigs"],
    errors: ["NOT_FOUND"],
  }),

  // ---- the tenant's audit trail
  "audit.tenantAsOf": route({
    method: "GET",
    path: "/api/auth/audit/asOf",
    permission: p.auditList,
    tag: "audit",
    summary:
      "The tenant as it was at an instant (users, roles, groups, products, devices), replayed from its events",
    query: z.object({ at: instant }).strict(),
    response: tenantAsOf,
    reads: [],
  }),
};
export type DeviceRoutes = typeof deviceRoutes;
