import { useTranslation } from 'react-i18next';
import { Flex, Spinner, Text } from '@radix-ui/themes';

/** Shown while a screen's code is loading. */
export function Loading() {
  const { t } = useTranslation();
  return (
    <Flex align="center" justify="center" gap="2" p="6" data-testid="screen-loading">
      <Spinner />
      <Text size="2" color="gray">
        {t('common.loading')}
      </Text>
    </Flex>
  );
}
