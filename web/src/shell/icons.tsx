import {
  BarChartIcon,
  BellIcon,
  CheckboxIcon,
  CubeIcon,
  DashboardIcon,
  GearIcon,
  HomeIcon,
  LayersIcon,
  MixIcon,
  Share2Icon,
  SymbolIcon,
  FileIcon,
} from '@radix-ui/react-icons';

const icons = {
  home: HomeIcon,
  dashboard: DashboardIcon,
  device: CubeIcon,
  scene: LayersIcon,
  analysis: BarChartIcon,
  rule: MixIcon,
  alarm: BellIcon,
  test: CheckboxIcon,
  forward: Share2Icon,
  system: GearIcon,
  link: SymbolIcon,
} as const;

export function MenuIcon({ name }: { name?: string }) {
  const Icon = (name && icons[name as keyof typeof icons]) || FileIcon;
  return <Icon width={16} height={16} />;
}
