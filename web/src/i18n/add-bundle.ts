import i18n from './index.ts';

/** A screen's strings join the app's dictionaries (deep, without overwriting the app's own keys) when it loads. */
export function addBundle(zh: object, en: object): void {
  i18n.addResourceBundle('zh', 'translation', zh, true, false);
  i18n.addResourceBundle('en', 'translation', en, true, false);
}
