import { DomainError, type TelemetryRoutes } from '@iot/contracts';
import type { Handlers } from '@iot/contracts/http/handler.ts';

/** HTTP ingest (issue 11): a device without MQTT posts its readings with its credentials. */
export const telemetryHandlers: Pick<Handlers<TelemetryRoutes>, 'telemetry.report'> = {
  async 'telemetry.report'({ body }, ctx) {
    if (!ctx.ports.intake) throw new DomainError('INTERNAL');
    const { data, ...credentials } = body;
    const result = await ctx.ports.intake.report(credentials, data);
    if (!result) throw new DomainError('DEVICE_AUTH_FAILED');
    return result;
  },
};
