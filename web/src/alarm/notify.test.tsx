// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { emptyPage, ok, renderScreen, stubServer } from '../test/render.tsx';
import { ContactsPage, NotifyConfigsPage, NotifyRecordsPage } from './NotifyPages.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const contact = { id: 'c1', name: 'Li Lei', phone: null, email: 'li@example.com', emailActivated: false, wechat: null, remark: null };
const contacts = ok({ rows: [{ ...contact, createTime: '2026-01-01T00:00:00Z' }], total: 1, page: 1, pageSize: 20 });
const rowCheckbox = (name: string) =>
  within(screen.getByRole('row', { name: new RegExp(name) })).getByRole('checkbox', { name: 'Select this row' });
const notices = () => [...document.querySelectorAll('.notice')].map((n) => n.textContent);

describe('deleting a contact (issue 22, Low)', () => {
  it('asks a question naming the contact, and cancelling keeps the row selected', async () => {
    const calls = stubServer({ 'GET /api/iot/alarm/contact': contacts });
    const user = userEvent.setup();
    renderScreen(<ContactsPage />);
    await user.click(await screen.findByRole('checkbox', { name: 'Select this row' }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const ask = await screen.findByRole('alertdialog');
    expect(within(ask).getByText('Delete the contact “Li Lei”?')).toBeTruthy();
    await user.click(within(ask).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(rowCheckbox('Li Lei').getAttribute('aria-checked')).toBe('true');
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
  });

  it('says once that it was deleted', async () => {
    stubServer({
      'GET /api/iot/alarm/contact': contacts,
      'DELETE /api/iot/alarm/contact': ok({ ok: 1, failed: 0, results: [{ id: 'c1', ok: true, code: null, msg: null }] }),
    });
    const user = userEvent.setup();
    renderScreen(<ContactsPage />);
    await user.click(await screen.findByRole('checkbox', { name: 'Select this row' }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(notices().length).toBeGreaterThan(0));
    expect(notices()).toEqual(['Operation tipDeleted']);
  });

  it('deletes the selected contacts in one call and says how many failed and why', async () => {
    const two = ok({
      rows: [
        { ...contact, createTime: '2026-01-01T00:00:00Z' },
        { ...contact, id: 'c2', name: 'Han Meimei', createTime: '2026-01-02T00:00:00Z' },
      ],
      total: 2,
      page: 1,
      pageSize: 20,
    });
    const calls = stubServer({
      'GET /api/iot/alarm/contact': two,
      'DELETE /api/iot/alarm/contact': ok({
        ok: 1,
        failed: 1,
        results: [
          { id: 'c1', ok: true, code: null, msg: null },
          { id: 'c2', ok: false, code: 'IN_USE', msg: 'Used by a notification' },
        ],
      }),
    });
    const user = userEvent.setup();
    renderScreen(<ContactsPage />);
    await screen.findByText('Han Meimei');
    await user.click(rowCheckbox('Li Lei'));
    await user.click(rowCheckbox('Han Meimei'));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    // (A notice of the test before may still be fading out, so this one is looked for among them.)
    await waitFor(() => expect(notices()).toContain('Operation tip1 done, 1 failed: Used by a notification'));
    const deletes = calls.filter((c) => c.method === 'DELETE');
    expect(deletes.map((c) => new URL(c.url, 'http://x').searchParams.get('ids'))).toEqual(['c1,c2']);
  });

  it('names the object in the dialog title', async () => {
    stubServer({ 'GET /api/iot/alarm/contact': contacts });
    const user = userEvent.setup();
    renderScreen(<ContactsPage />);
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    expect(within(await screen.findByRole('dialog')).getByRole('heading').textContent).toBe('Add contact');
  });
});

describe('notification configuration form (spec §5)', () => {
  it('says a send way and a contact are required when none is picked, not that the format is wrong', async () => {
    const calls = stubServer({
      'GET /api/iot/notifyConfig': emptyPage,
      'GET /api/iot/notifyTemplate': ok({ rows: [], total: 0, page: 1, pageSize: 500 }),
      'GET /api/iot/alarm/contact': contacts,
      'GET /api/auth/dept': ok([]),
    });
    const user = userEvent.setup();
    renderScreen(<NotifyConfigsPage />);
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Email' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const errors = Object.fromEntries(
      [...dialog.querySelectorAll('[data-invalid]')].map((f) => [
        f.querySelector('.field-label')!.textContent!.replace('*', ''),
        f.querySelector('.field-error')!.textContent,
      ]),
    );
    expect(errors).toMatchObject({ 'Send ways': 'This field is required', Contact: 'This field is required' });
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});

describe('notification records: send again (issue 22, High)', () => {
  const record = (id: string, status: 'unsent' | 'sent' | 'failed') => ({
    id,
    groupId: null,
    status,
    error: status === 'failed' ? 'refused' : null,
    attempts: 1,
    sendWay: 'email',
    type: 'email',
    recipient: `${id}@example.com`,
    contactName: null,
    subject: `subject ${id}`,
    body: 'body',
    alarmId: null,
    ticketId: null,
    sn: null,
    read: false,
    summary: false,
    createTime: '2026-01-01T00:00:00Z',
    sentAt: null,
    via: null,
  });

  it('offers send again on sent and failed rows, and sends a selected sent record again', async () => {
    const calls = stubServer({
      'GET /api/iot/notifyRecord': ok({
        rows: [record('r1', 'sent'), record('r2', 'failed'), record('r3', 'unsent')],
        total: 3,
        page: 1,
        pageSize: 20,
      }),
      'POST /api/iot/notifyRecord/retry': ok({ updated: 1 }),
    });
    const user = userEvent.setup();
    renderScreen(<NotifyRecordsPage />);
    const row = async (id: string) => within(await screen.findByRole('row', { name: new RegExp(`subject ${id}`) }));
    expect((await row('r1')).queryByRole('button', { name: 'Send again' })).not.toBeNull();
    expect((await row('r2')).queryByRole('button', { name: 'Send again' })).not.toBeNull();
    expect((await row('r3')).queryByRole('button', { name: 'Send again' })).toBeNull();
    await user.click(rowCheckbox('subject r1'));
    await user.click(screen.getAllByRole('button', { name: 'Send again' })[0]!);
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ ids: ['r1'] });
  });
});
