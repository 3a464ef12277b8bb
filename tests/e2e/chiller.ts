import type { BodyOf } from '../harness/api.ts';
import type { BrowserPlatform } from '../harness/browser.ts';
import type { HttpClient } from '../harness/http-client.ts';

/**
 * What the alarm screens of the browser tests start from, set up over the API: a published chiller product with a
 * temperature property, one device `CH-001`, a duty contact, an email template and a notification configuration
 * that sends the tenant's alarms to that contact by `sendWays`.
 */
export async function seedChiller(
  sut: BrowserPlatform,
  api: HttpClient,
  options: {
    device?: Partial<BodyOf<'device.create'>>;
    unit?: string;
    contact: { name: string; email: string };
    template: string;
    config: string;
    sendWays: string[];
  },
) {
  const { id: productId } = await api.call('product.create', { body: { name: 'Chiller', code: 'CHILLER', type: 'direct' } });
  await api.call('product.defineFunction', {
    body: {
      productId,
      function: {
        type: 'property',
        name: 'Temperature',
        identifier: 'temperature',
        dataType: { type: 'float', ...(options.unit ? { unit: options.unit } : {}) },
      },
    },
  });
  await api.call('product.publish', { body: { id: productId } });
  await api.call('device.create', { body: { sn: 'CH-001', name: 'chiller one', productId, ...options.device } });
  const { id: contactId } = await api.call('contact.create', { body: options.contact });
  const { id: templateId } = await api.call('notifyTemplate.create', {
    body: { code: 'T1', name: options.template, type: 'email', subject: 'Alarm on {{device}}', content: '{{device}} {{variable}}' },
  });
  await sut.platform.runner.catchUp();
  await api.call('notifyConfig.create', {
    body: { name: options.config, source: 'alarm', type: 'email', templateId, sendWays: options.sendWays, contactIds: [contactId] },
  });
  await sut.platform.runner.catchUp();
  return { productId, contactId, templateId };
}
