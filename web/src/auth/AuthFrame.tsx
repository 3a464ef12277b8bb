import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, Flex, Heading, Text } from '@radix-ui/themes';
import { PRODUCT_VERSION } from '@iot/contracts';
import { LanguageSwitch } from '../shell/LanguageSwitch.tsx';
import { useSettings } from '../shell/useSettings.ts';

/** The frame of the pages outside the shell: brand on the left, the form on the right. */
export function AuthFrame({ title, children, wide }: { title: string; children: ReactNode; wide?: boolean }) {
  const { t } = useTranslation();
  const { systemName, logoUrl } = useSettings();
  return (
    <div className="auth-page">
      <div className="auth-brand">
        <Flex align="center" gap="3">
          <img src={logoUrl} alt="" height={30} onError={(e) => ((e.target as HTMLImageElement).src = '/favicon.svg')} />
          <Heading size="6" className="auth-brand-name">
            {systemName}
          </Heading>
        </Flex>
        <Text as="p" size="4" className="auth-tagline">
          {t('brand.tagline')}
        </Text>
        <Text as="p" size="1" className="auth-version">
          v{PRODUCT_VERSION}
        </Text>
      </div>
      <div className="auth-panel">
        <div className="auth-lang">
          <LanguageSwitch />
        </div>
        <Card size="4" className="auth-card" style={{ width: wide ? 520 : 400 }}>
          <Heading size="5" mb="4">
            {title}
          </Heading>
          {children}
        </Card>
      </div>
    </div>
  );
}
