// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { ProductDetail } from './ProductsPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const product = {
  id: 'p1',
  key: 'k1',
  name: 'Chiller',
  code: 'CHILLER',
  type: 'direct',
  status: 'draft',
  modelVersion: 0,
  draftChanged: false,
  functions: [],
  versions: [],
};
/** The error under each invalid field of the open dialog, by field label. */
const fieldErrors = () =>
  Object.fromEntries(
    [...screen.getAllByRole('dialog').at(-1)!.querySelectorAll('[data-invalid]')].map((f) => [
      f.querySelector('.field-label')!.textContent!.replace('*', ''),
      f.querySelector('.field-error')!.textContent,
    ]),
  );

describe('thing-model function form (issue 22): checked with the contract schema before anything is sent', () => {
  it('shows required at the name and the identifier when saved empty, and sends nothing', async () => {
    const calls = stubServer({ 'GET /api/iot/product/detail': ok(product) });
    const user = userEvent.setup();
    renderScreen(<ProductDetail id="p1" onClose={() => {}} />);
    await user.click(await screen.findByRole('button', { name: 'Add function' }));
    await user.click(within(screen.getAllByRole('dialog').at(-1)!).getByRole('button', { name: 'Save' }));
    expect(fieldErrors()).toEqual({ Name: 'This field is required', Identifier: 'This field is required' });
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('shows the identifier rule at the identifier for 1bad-id, and the range rule when max is below min', async () => {
    const calls = stubServer({ 'GET /api/iot/product/detail': ok(product) });
    const user = userEvent.setup();
    renderScreen(<ProductDetail id="p1" onClose={() => {}} />);
    await user.click(await screen.findByRole('button', { name: 'Add function' }));
    const dialog = screen.getAllByRole('dialog').at(-1)!;
    const input = (name: string) => dialog.querySelector(`input[name=${name}]`)!;
    await user.type(input('name'), 'Temperature');
    await user.type(input('identifier'), '1bad-id');
    await user.type(input('min'), '10');
    await user.type(input('max'), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(fieldErrors()).toEqual({
      Identifier: 'Starts with a letter or _, then letters, digits or _',
      Maximum: 'The maximum may not be below the minimum; an integer range has integer bounds',
    });
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });
});
