/** The intake as the HTTP ingest route reaches it: devices that cannot speak MQTT post their readings. */
export interface DeviceIntakePort {
  /**
   * Authenticates the device (SN and secret, or the secret alone as a ThingsBoard-style token) and takes its
   * readings; null when the credentials are refused. Readings that break the rules MQTT messages follow (1 to 1000
   * samples, times from 2000 to a day ahead) are a dead letter of the device and a DomainError TELEMETRY_INVALID.
   */
  report(
    credentials: { sn?: string; secret?: string; token?: string },
    body: unknown,
  ): Promise<{ accepted: number; rejected: { identifier: string; reason: string }[] } | null>;
}
