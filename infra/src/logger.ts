import pino from 'pino';

/** Request logs carry the request id; these paths never carry a secret into a log line. */
export const createLogger = (level: string) =>
  pino({
    level,
    redact: {
      paths: [
        'req.headers.authentication',
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.secret',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
