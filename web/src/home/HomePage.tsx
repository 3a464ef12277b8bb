import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Card, Flex, Grid, Heading, Text } from '@radix-ui/themes';
import { PRODUCT_VERSION } from '@iot/contracts';
import { useSession } from '../auth/useSession.ts';
import { MenuIcon } from '../shell/icons.tsx';
import { useTitle } from '../shell/Layout.tsx';
import { useMenu } from '../shell/useMenu.ts';
import { useSettings } from '../shell/useSettings.ts';
import { Overview } from './Overview.tsx';
import { analysisPerm } from '@iot/contracts/analysis/permissions.ts';
import { can } from '../api/session.ts';
import { Dashboard } from '../analysis/Dashboard.tsx';

/** The index home page: a greeting, an overview of the tenant, and a shortcut to every area the user may open. */
export function HomePage() {
  const { t } = useTranslation();
  const title = useTitle();
  const user = useSession();
  const menu = useMenu();
  const { systemName } = useSettings();
  const areas = (menu.data ?? []).filter((n) => n.path !== '/index');
  return (
    <Flex direction="column" gap="4">
      <Card size="3" className="welcome">
        <Heading size="5">{t('home.welcome', { name: user?.username ?? '' })}</Heading>
        <Text as="p" size="2" color="gray" mt="1">
          {t('home.intro', { system: systemName })} · v{PRODUCT_VERSION}
        </Text>
      </Card>
      {can(user, analysisPerm.dashboard) && <Dashboard />}
      <Overview withAlarms={!can(user, analysisPerm.dashboard)} />
      <Heading size="3">{t('home.areas')}</Heading>
      <Grid columns="4" gap="3">
        {areas.map((area) => {
          const first = area.children?.find((c) => c.path) ?? area;
          return (
            <Link key={area.key} to={first.path ?? '/index'} className="area-card">
              <Card size="2">
                <Flex gap="3" align="center">
                  <span className="area-icon">
                    <MenuIcon name={area.icon} />
                  </span>
                  <div style={{ minWidth: 0 }}>
                    <Text as="div" size="3" weight="medium">
                      {title(area.title)}
                    </Text>
                    <Text
                      as="div"
                      size="1"
                      color="gray"
                      className="ellipsis"
                      title={(area.children ?? []).map((c) => title(c.title)).join(' · ')}
                    >
                      {(area.children ?? []).map((c) => title(c.title)).join(' · ')}
                    </Text>
                  </div>
                </Flex>
              </Card>
            </Link>
          );
        })}
      </Grid>
    </Flex>
  );
}
