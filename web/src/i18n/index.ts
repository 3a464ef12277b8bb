import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANG } from '@iot/contracts';
import { zh } from './zh.ts';
import { en } from './en.ts';

export const LANG_KEY = 'lang';
export type Lang = 'zh' | 'en';

function storedLang(): Lang {
  try {
    const value = localStorage.getItem(LANG_KEY);
    return value === 'en' || value === 'zh' ? value : DEFAULT_LANG;
  } catch {
    return DEFAULT_LANG;
  }
}

void i18n.use(initReactI18next).init({
  resources: { zh: { translation: zh }, en: { translation: en } },
  lng: storedLang(),
  fallbackLng: 'zh',
  interpolation: { escapeValue: false },
  returnNull: false,
});

// English placeholders read 'Enter the role name': lower the label's first letter, unless it starts an acronym (MQTT, IP).
i18n.services.formatter?.add('lowerFirst', (value: unknown) => {
  const text = String(value ?? '');
  return /^[A-Z]{2}/.test(text) ? text : text.charAt(0).toLowerCase() + text.slice(1);
});

/** Switches the language and remembers it under `lang` (spec §9). */
export function setLang(lang: Lang): void {
  localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
  void i18n.changeLanguage(lang);
}

/** The screen's language as the API and the screens name it: English, or Chinese for anything else. */
export const langOf = (language: string): Lang => (language === 'en' ? 'en' : 'zh');

export default i18n;
