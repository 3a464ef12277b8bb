import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Select } from '@radix-ui/themes';
import { langOf, setLang, type Lang } from '../i18n/index.ts';

/** Chinese by default, English offered; the choice is remembered (spec §9). */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  return (
    <Select.Root
      value={langOf(i18n.language)}
      onValueChange={(value) => {
        setLang(value as Lang);
        // Server texts (messages, server-side titles) come in the new language on the next fetch.
        void queryClient.invalidateQueries();
      }}
    >
      <Select.Trigger variant="ghost" aria-label={t('shell.language')} data-testid="lang-switch" />
      <Select.Content>
        <Select.Item value="zh">中文</Select.Item>
        <Select.Item value="en">English</Select.Item>
      </Select.Content>
    </Select.Root>
  );
}
