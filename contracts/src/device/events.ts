import type { DomainEvent } from '../event.ts';
import type { DeviceLocation, MqttConfigFields, NodeType, ProductFields, TemplateFields, VariableFields } from './model.ts';
import type { ThingFunction } from './thing-model.ts';

/**
 * What can happen to a product: its fields, its draft thing model (one function at a time, or a whole
 * imported file), and publication, which freezes the draft as the next version devices report against.
 */
export type ProductEvent =
  | DomainEvent<
      'ProductCreated',
      { productId: string; key: string; fields: ProductFields; functions: ThingFunction[]; copiedFrom: string | null }
    >
  | DomainEvent<'ProductUpdated', { productId: string; fields: ProductFields }>
  | DomainEvent<'ProductFunctionDefined', { productId: string; function: ThingFunction }>
  | DomainEvent<'ProductFunctionRemoved', { productId: string; identifier: string }>
  | DomainEvent<'ProductThingModelImported', { productId: string; functions: ThingFunction[] }>
  | DomainEvent<'ProductPublished', { productId: string; version: number; functions: ThingFunction[] }>
  | DomainEvent<'ProductUnpublished', { productId: string }>
  | DomainEvent<'ProductDeleted', { productId: string }>;

/** What can happen to a device (a gateway is a device whose product's node type is `gateway`). */
export type DeviceEvent =
  | DomainEvent<
      'DeviceCreated',
      {
        deviceId: string;
        sn: string;
        name: string;
        productId: string;
        modelVersion: number;
        nodeType: NodeType;
        groupId: string | null;
        gatewayId: string | null;
        location: DeviceLocation;
        version: string | null;
        tags: string[];
        remark: string | null;
        /** SHA-256 of the device secret, hex: a token is found by its hash at connect. */
        secretHash: string;
      }
    >
  | DomainEvent<
      'DeviceUpdated',
      { deviceId: string; name: string; location: DeviceLocation; version: string | null; tags: string[]; remark: string | null }
    >
  | DomainEvent<'DeviceMoved', { deviceId: string; groupId: string | null }>
  | DomainEvent<'DeviceGatewayBound', { deviceId: string; gatewayId: string | null }>
  | DomainEvent<'DeviceSecretRotated', { deviceId: string; secretHash: string }>
  | DomainEvent<'DeviceEnabled', { deviceId: string }>
  | DomainEvent<'DeviceDisabled', { deviceId: string }>
  | DomainEvent<'DeviceTemplateApplied', { deviceId: string; templateId: string | null }>
  | DomainEvent<'DeviceModelUpgraded', { deviceId: string; modelVersion: number }>
  | DomainEvent<'DeviceDeleted', { deviceId: string; sn: string }>
  /** Presence, from the broker's connect and disconnect (debounced) and heartbeat time-outs: `at` is when it happened. */
  | DomainEvent<'DeviceWentOnline', { deviceId: string; at: string }>
  | DomainEvent<'DeviceWentOffline', { deviceId: string; at: string; reason: 'disconnect' | 'timeout' }>
  /** A command to the device (a service invoked, a property set), who asked, and how it ended. */
  | DomainEvent<
      'DeviceCommandSent',
      {
        deviceId: string;
        messageId: string;
        kind: 'service' | 'property';
        identifier: string;
        params: Record<string, unknown>;
        mode: 'sync' | 'async';
      }
    >
  | DomainEvent<'DeviceCommandReplied', { deviceId: string; messageId: string; output: unknown }>
  | DomainEvent<'DeviceCommandFailed', { deviceId: string; messageId: string; reason: 'timeout' | 'offline' }>
  /** An operator's desired value of a writable property: sent until the device reports it (re-sent at reconnect). */
  | DomainEvent<'DeviceDesiredSet', { deviceId: string; identifier: string; value: unknown }>;

/** A template of acquisition settings and variables for a product's devices. */
export type TemplateEvent =
  | DomainEvent<'TemplateCreated', { templateId: string; fields: TemplateFields }>
  | DomainEvent<'TemplateUpdated', { templateId: string; fields: TemplateFields }>
  | DomainEvent<'TemplateVariableDefined', { templateId: string; variable: VariableFields }>
  | DomainEvent<'TemplateVariableRemoved', { templateId: string; identifier: string }>
  | DomainEvent<'TemplateDeleted', { templateId: string }>;

/** The MQTT settings a gateway connects upstream with; the password is kept out of the log (`fields.password` is always null). */
export type MqttConfigEvent =
  | DomainEvent<'MqttConfigCreated', { configId: string; fields: MqttConfigFields; hasPassword: boolean }>
  | DomainEvent<'MqttConfigUpdated', { configId: string; fields: MqttConfigFields; hasPassword: boolean }>
  | DomainEvent<'MqttConfigDeleted', { configId: string }>;

export type DeviceEventType = DeviceEvent['type'];
export type ProductEventType = ProductEvent['type'];
