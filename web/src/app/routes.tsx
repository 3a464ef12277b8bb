import { lazy, Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, Outlet, useLocation } from 'react-router';
import { setUnauthorizedHandler, callRoute } from '../api/client.ts';
import { can, session } from '../api/session.ts';
import { LoginPage } from '../auth/LoginPage.tsx';
import { sessionStore, useSession } from '../auth/useSession.ts';
import { ComingSoon, NotFound } from '../home/ComingSoon.tsx';
import { HomePage } from '../home/HomePage.tsx';
import { Layout } from '../shell/Layout.tsx';
import { Loading } from '../ui/Loading.tsx';
import { flatten, staticMenu } from '../shell/menu.ts';
import { useMenu } from '../shell/useMenu.ts';

// Each screen is its own chunk, loaded when first opened: the login page and the shell load alone.
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));
const AppsPage = page(() => import('../system/AppsPage.tsx'), 'AppsPage');
const DictionariesPage = page(() => import('../system/DictionariesPage.tsx'), 'DictionariesPage');
const GroupsPage = page(() => import('../system/GroupsPage.tsx'), 'GroupsPage');
const MenusPage = page(() => import('../system/MenusPage.tsx'), 'MenusPage');
const OperationLogPage = page(() => import('../system/OperationLogPage.tsx'), 'OperationLogPage');
const RolesPage = page(() => import('../system/RolesPage.tsx'), 'RolesPage');
const SettingsPage = page(() => import('../system/SettingsPage.tsx'), 'SettingsPage');
const TenantAuditPage = page(() => import('../system/TenantAuditPage.tsx'), 'TenantAuditPage');
const UsersPage = page(() => import('../system/UsersPage.tsx'), 'UsersPage');
const ProfilePage = page(() => import('../auth/ProfilePage.tsx'), 'ProfilePage');
const RegisterPage = page(() => import('../auth/RegisterPage.tsx'), 'RegisterPage');
const ProductsPage = page(() => import('../fleet/ProductsPage.tsx'), 'ProductsPage');
const DevicesPage = page(() => import('../fleet/DevicesPage.tsx'), 'DevicesPage');
const GatewaysPage = page(() => import('../fleet/DevicesPage.tsx'), 'GatewaysPage');
const GroupingPage = page(() => import('../fleet/GroupingPage.tsx'), 'GroupingPage');
const AuditPage = page(() => import('../fleet/AuditPage.tsx'), 'AuditPage');
const HistoryPage = page(() => import('../fleet/HistoryPage.tsx'), 'HistoryPage');
const TemplatesPage = page(() => import('../fleet/TemplatesPage.tsx'), 'TemplatesPage');
const MqttConfigsPage = page(() => import('../fleet/MqttConfigsPage.tsx'), 'MqttConfigsPage');
const AlarmsPage = page(() => import('../alarm/AlarmsPage.tsx'), 'AlarmsPage');
const AlarmRulesPage = page(() => import('../alarm/AlarmRulesPage.tsx'), 'AlarmRulesPage');
const ContactsPage = page(() => import('../alarm/NotifyPages.tsx'), 'ContactsPage');
const NotifyTemplatesPage = page(() => import('../alarm/NotifyPages.tsx'), 'NotifyTemplatesPage');
const NotifyConfigsPage = page(() => import('../alarm/NotifyPages.tsx'), 'NotifyConfigsPage');
const NotifyRecordsPage = page(() => import('../alarm/NotifyPages.tsx'), 'NotifyRecordsPage');
const NotifySettingsPage = page(() => import('../alarm/NotifySettingsPage.tsx'), 'NotifySettingsPage');
const MqttServerPage = page(() => import('../forward/ForwardPages.tsx'), 'MqttServerPage');
const HttpServerPage = page(() => import('../forward/ForwardPages.tsx'), 'HttpServerPage');
const ForwardRulesPage = page(() => import('../forward/ForwardPages.tsx'), 'ForwardRulesPage');
const MqttUserPage = page(() => import('../forward/ForwardPages.tsx'), 'MqttUserPage');
const MqttTopicPage = page(() => import('../forward/ForwardPages.tsx'), 'MqttTopicPage');
const StatTaskPage = page(() => import('../analysis/StatTaskPage.tsx'), 'StatTaskPage');
const BusinessStatsPage = page(() => import('../power/BusinessPage.tsx'), 'BusinessStatsPage');
const RegionFaultPage = page(() => import('../analysis/FaultStatsPage.tsx'), 'RegionFaultPage');
const GarageFaultPage = page(() => import('../analysis/FaultStatsPage.tsx'), 'GarageFaultPage');
const ProjectFaultPage = page(() => import('../analysis/FaultStatsPage.tsx'), 'ProjectFaultPage');
const NationalFaultPage = page(() => import('../analysis/FaultStatsPage.tsx'), 'NationalFaultPage');
const ProjectsPage = page(() => import('../analysis/SitesPage.tsx'), 'ProjectsPage');
const GaragesPage = page(() => import('../analysis/SitesPage.tsx'), 'GaragesPage');
const ReportPage = page(() => import('../report/ReportPage.tsx'), 'ReportPage');
const MarketPage = page(() => import('../market/MarketPage.tsx'), 'MarketPage');
const ChainLibraryPage = page(() => import('../rule/ChainLibraryPage.tsx'), 'ChainLibraryPage');
const FilePage = page(() => import('../file/FilePage.tsx'), 'FilePage');
const OtaTaskPage = page(() => import('../ota/OtaTaskPage.tsx'), 'OtaTaskPage');
const PtConfigPage = page(() => import('../producttest/PtPages.tsx'), 'PtConfigPage');
const ProductionTestPage = page(() => import('../producttest/PtPages.tsx'), 'ProductionTestPage');
const PtReportPage = page(() => import('../producttest/PtPages.tsx'), 'PtReportPage');
const QualityTestPage = page(() => import('../producttest/PtPages.tsx'), 'QualityTestPage');
const QcReportPage = page(() => import('../producttest/PtPages.tsx'), 'QcReportPage');
const BatchPage = page(() => import('../producttest/PtPages.tsx'), 'BatchPage');
const IccidPage = page(() => import('../producttest/PtPages.tsx'), 'IccidPage');
const UserBindingPage = page(() => import('../producttest/PtPages.tsx'), 'UserBindingPage');
const VideoWallPage = page(() => import('../video/VideoWallPage.tsx'), 'VideoWallPage');
const FieldConfigPage = page(() => import('../field/FieldConfigPage.tsx'), 'FieldConfigPage');
const SceneDesignPage = page(() => import('../scene/ScenePages.tsx'), 'SceneDesignPage');
const SceneLinkagePage = page(() => import('../scene/ScenePages.tsx'), 'SceneLinkagePage');
const LinkageLogPage = page(() => import('../scene/ScenePages.tsx'), 'LinkageLogPage');
const RuleListPage = page(() => import('../scene/ScenePages.tsx'), 'RuleListPage');
const ChainEditorPage = page(() => import('../rule/ChainEditorPage.tsx'), 'ChainEditorPage');
const ResourcesPage = page(() => import('../system/ResourcesPage.tsx'), 'ResourcesPage');
const TasksPage = page(() => import('../system/TasksPage.tsx'), 'TasksPage');
const MqttPage = page(() => import('../system/MqttPage.tsx'), 'MqttPage');
const DataMapPage = page(() => import('../operation/DataMapPage.tsx'), 'DataMapPage');
const BigScreenPage = page(() => import('../screen/BigScreensPage.tsx'), 'BigScreensPage');
const SharedScreenPage = page(() => import('../screen/SharedScreenPage.tsx'), 'SharedScreenPage');
const DiagramPage = page(() => import('../operation/DiagramPage.tsx'), 'DiagramPage');

const suspended = (element: ReactNode) => <Suspense fallback={<Loading />}>{element}</Suspense>;

/** The screens built so far; every other menu path shows the "later release" page. */
export const screens: Record<string, ComponentType> = {
  '/system/tenant': TenantAuditPage,
  '/system/user': UsersPage,
  '/system/dept': GroupsPage,
  '/system/role': RolesPage,
  '/system/menu': MenusPage,
  '/system/app': AppsPage,
  '/system/dict': DictionariesPage,
  '/system/settings': SettingsPage,
  '/system/log': OperationLogPage,
  '/system/audit': AuditPage,
  '/system/file': FilePage,
  '/device/product': ProductsPage,
  '/device/device': DevicesPage,
  '/device/gateway': GatewaysPage,
  '/analysis/history': HistoryPage,
  '/analysis/task': StatTaskPage,
  '/analysis/business': BusinessStatsPage,
  '/analysis/regionFault': RegionFaultPage,
  '/analysis/garageFault': GarageFaultPage,
  '/analysis/projectFault': ProjectFaultPage,
  '/analysis/nationalFault': NationalFaultPage,
  '/analysis/project': ProjectsPage,
  '/analysis/garage': GaragesPage,
  '/analysis/report': ReportPage,
  '/operation/dataMarket': MarketPage,
  '/device/template': TemplatesPage,
  '/device/mqttConfig': MqttConfigsPage,
  '/device/grouping': GroupingPage,
  '/device/ota': OtaTaskPage,
  '/alarm/monitor': AlarmsPage,
  '/alarm/settings': AlarmRulesPage,
  '/alarm/contacts': ContactsPage,
  '/alarm/notifyTemplates': NotifyTemplatesPage,
  '/alarm/notifyConfigs': NotifyConfigsPage,
  '/alarm/notifyRecords': NotifyRecordsPage,
  '/alarm/notifySettings': NotifySettingsPage,
  '/forward/mqttServer': MqttServerPage,
  '/forward/httpServer': HttpServerPage,
  '/forward/rules': ForwardRulesPage,
  '/forward/mqttUser': MqttUserPage,
  '/forward/mqttTopic': MqttTopicPage,
  '/rule/chainLibrary': ChainLibraryPage,
  '/producttest/config': PtConfigPage,
  '/producttest/production': ProductionTestPage,
  '/producttest/ptReport': PtReportPage,
  '/producttest/quality': QualityTestPage,
  '/producttest/qcReport': QcReportPage,
  '/producttest/batch': BatchPage,
  '/producttest/iccid': IccidPage,
  '/producttest/binding': UserBindingPage,
  '/operation/video': VideoWallPage,
  '/operation/fieldConfig': FieldConfigPage,
  '/rule/list': RuleListPage,
  '/scene/design': SceneDesignPage,
  '/scene/linkage': SceneLinkagePage,
  '/scene/linkageLog': LinkageLogPage,
  '/rule/chainEditor': ChainEditorPage,
  '/system/resource': ResourcesPage,
  '/system/task': TasksPage,
  '/system/mqtt': MqttPage,
  '/operation/dataMap': DataMapPage,
  '/operation/bigScreen': BigScreenPage,
  '/operation/scene': DiagramPage,
};

function RequireAuth() {
  const user = useSession();
  const location = useLocation();
  useEffect(() => {
    if (!session.token()) return;
    // Permissions may have changed since login: refresh them once per visit.
    callRoute('auth.currentUser', {})
      .then((fresh) => sessionStore.update(fresh))
      .catch(() => undefined);
  }, []);
  if (!user || !session.token())
    return <Navigate to={sessionStore.endedByUser() ? '/login' : `/login?redirect=${encodeURIComponent(location.pathname)}`} replace />;
  return <Outlet />;
}

/**
 * Any path below the shell: a built screen (if the user holds its permission), the "later release" page
 * for an entry of the menu, or not found.
 */
function Screen() {
  const user = useSession();
  const location = useLocation();
  const menu = useMenu();
  const path = location.pathname;
  const Built = screens[path];
  const node = flatten(staticMenu).find((n) => n.path === path);
  const inMenu = flatten(menu.data ?? []).some((n) => n.path === path);
  if (menu.isLoading) return null;
  // A built screen opens for whom the menu shows it (the menu's permission), not for anyone typing its address.
  if (Built) return can(user, node?.permission) && (inMenu || (menu.isError && node !== undefined)) ? <Built /> : <NotFound />;
  if (!inMenu && !(node !== undefined && can(user, node.permission))) return <NotFound />;
  return <ComingSoon />;
}

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/register', element: suspended(<RegisterPage />) },
  // A big screen shared by link: no login (issue 20).
  { path: '/share/screen', element: suspended(<SharedScreenPage />) },
  {
    element: <RequireAuth />,
    children: [
      {
        element: <Layout />,
        children: [
          { path: '/', element: <Navigate to="/index" replace /> },
          { path: '/index', element: <HomePage /> },
          { path: '/home/index', element: <Navigate to="/index" replace /> },
          { path: '/profile', element: suspended(<ProfilePage />) },
          { path: '*', element: suspended(<Screen />) },
        ],
      },
    ],
  },
]);

// Spec §8 as issue 22 narrows it: a 401 (no session, or one expired or revoked) sends the browser to login; a 403 stays.
setUnauthorizedHandler(() => {
  sessionStore.clear();
  const here = window.location.pathname;
  if (here === '/login') return;
  void router.navigate(sessionStore.endedByUser() ? '/login' : `/login?redirect=${encodeURIComponent(here)}`, { replace: true });
});
