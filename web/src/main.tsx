import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Theme } from '@radix-ui/themes';
import '@radix-ui/themes/styles.css';
import './styles.css';
import i18n from './i18n/index.ts';
import { router } from './app/routes.tsx';
import { ConfirmHost, NoticeHost } from './ui/feedback.tsx';
import { textOn } from './ui/color.ts';
import { THEME_COLOUR } from '@iot/contracts/constants.ts';

document.documentElement.lang = i18n.language;
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* Text on the theme colour (buttons, the active tag, the brand mark) takes its colour from the theme's brightness. */}
      <Theme
        accentColor="blue"
        grayColor="slate"
        radius="medium"
        scaling="100%"
        style={{ ['--accent-contrast' as string]: textOn(THEME_COLOUR), ['--on-theme' as string]: textOn(THEME_COLOUR) }}
      >
        <RouterProvider router={router} />
        <NoticeHost />
        <ConfirmHost />
      </Theme>
    </QueryClientProvider>
  </StrictMode>,
);
