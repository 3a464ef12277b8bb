/**
 * Permission strings of the business and fault statistics, the project and garage screens and the home
 * dashboard (issue 20): interfaces and buttons under Data analysis and Home in the menu catalogue.
 */
export const analysisPerm = {
  businessList: 'analysis:business:list',
  businessExport: 'analysis:business:export',
  regionFaultList: 'analysis:regionFault:list',
  regionFaultExport: 'analysis:regionFault:export',
  garageFaultList: 'analysis:garageFault:list',
  garageFaultExport: 'analysis:garageFault:export',
  projectFaultList: 'analysis:projectFault:list',
  projectFaultExport: 'analysis:projectFault:export',
  nationalFaultList: 'analysis:nationalFault:list',
  nationalFaultExport: 'analysis:nationalFault:export',
  projectList: 'analysis:project:list',
  projectExport: 'analysis:project:export',
  garageList: 'analysis:garage:list',
  garageExport: 'analysis:garage:export',
  dashboard: 'home:index:dashboard',
} as const;
