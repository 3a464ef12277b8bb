import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Heading, Text } from '@radix-ui/themes';
import { RocketIcon } from '@radix-ui/react-icons';
import { staticMenu, trail } from '../shell/menu.ts';
import { useTitle } from '../shell/Layout.tsx';

/** Screens of later releases: a clear page instead of a broken link. */
export function ComingSoon() {
  const { t } = useTranslation();
  const title = useTitle();
  const location = useLocation();
  const node = trail(staticMenu, location.pathname).at(-1);
  return (
    <Flex justify="center" pt="9">
      <Card size="4" style={{ maxWidth: 520, textAlign: 'center' }} data-testid="coming-soon">
        <Flex direction="column" align="center" gap="3">
          <RocketIcon width={40} height={40} color="var(--accent-9)" />
          <Heading size="5">{node ? title(node.title) : t('comingSoon.title')}</Heading>
          <Text size="2" color="gray">
            {t('comingSoon.text')}
          </Text>
          <Link to="/index">
            <Button variant="soft">{t('comingSoon.back')}</Button>
          </Link>
        </Flex>
      </Card>
    </Flex>
  );
}

export function NotFound() {
  const { t } = useTranslation();
  return (
    <Flex justify="center" pt="9">
      <Card size="4" style={{ maxWidth: 480, textAlign: 'center' }}>
        <Flex direction="column" align="center" gap="3">
          <Heading size="6">404</Heading>
          <Text size="2" color="gray">
            {t('notFound.text')}
          </Text>
          <Link to="/index">
            <Button variant="soft">{t('comingSoon.back')}</Button>
          </Link>
        </Flex>
      </Card>
    </Flex>
  );
}
