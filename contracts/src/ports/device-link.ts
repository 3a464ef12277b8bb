/** A command on its way to a device: what the device receives on its downlink topic. */
export interface DeviceCommandMessage {
  messageId: string;
  /** `service`: invoke a thing-model service; `property`: set a writable property. */
  kind: 'service' | 'property';
  identifier: string;
  params: Record<string, unknown>;
}

export type DeviceReply = { ok: true; output: unknown } | { ok: false; reason: 'timeout' | 'offline' };

/** The downlink as the command side reaches it: send to a device and, for a synchronous call, await its reply. */
export interface DeviceLinkPort {
  send(device: { sn: string; deviceId: string }, message: DeviceCommandMessage, waitMs: number | null): Promise<DeviceReply | null>;
  /** Whether a command would reach the device now: its own session with this process's broker, or its gateway's. */
  reachable(device: { sn: string; deviceId: string }): Promise<boolean>;
}
