import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ApiError, callRoute } from '../api/client.ts';
import { useSession } from '../auth/useSession.ts';
import { DEFAULT_SYSTEM_NAME, type SystemSettings } from '@iot/contracts/identity/settings.ts';

export const SETTINGS_KEY = 'settings';

/** System name and logo from settings; the product's own when the server has none. */
export function useSettings() {
  const { t } = useTranslation();
  const user = useSession();
  const query = useQuery({
    // Per user: what the login page got before login (the defaults) must not stay after it.
    queryKey: [SETTINGS_KEY, user?.id ?? ''],
    staleTime: 60_000,
    retry: false,
    queryFn: async (): Promise<SystemSettings> => {
      try {
        // Before login, the platform's own name and logo (the login and registration pages).
        return await callRoute(user ? 'settings.get' : 'settings.public', {}, { noRedirect: true });
      } catch (error) {
        if (error instanceof ApiError) return { systemName: '', logo: null, updatedAt: null };
        throw error;
      }
    },
  });
  const settings = query.data;
  return {
    systemName: settings?.systemName && settings.systemName !== DEFAULT_SYSTEM_NAME ? settings.systemName : t('brand.name'),
    logoUrl: settings?.logo ? `${user ? '/api/auth/userLogo' : '/api/auth/settings/public/logo'}?v=${settings.logo}` : '/favicon.svg',
    settings,
  };
}
