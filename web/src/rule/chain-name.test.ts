// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import i18n, { setLang } from '../i18n/index.ts';
import './i18n.ts';
import { nodeName } from './chain-name.ts';

describe('built-in names in the rule editor', () => {
  it("names the root chain's Warehousing node in the user's language, and an operator's node as given", () => {
    setLang('zh');
    const zh = nodeName(i18n.t, { name: 'Warehousing', kind: 'warehousing' });
    expect(zh).not.toBe('Warehousing');
    expect(zh).toMatch(/[\u4e00-\u9fff]/);
    expect(nodeName(i18n.t, { name: 'Warehousing', kind: 'filter' })).toBe('Warehousing');
    expect(nodeName(i18n.t, { name: '我的入库', kind: 'warehousing' })).toBe('我的入库');
    setLang('en');
    expect(nodeName(i18n.t, { name: 'Warehousing', kind: 'warehousing' })).toBe('Warehousing');
  });
});
