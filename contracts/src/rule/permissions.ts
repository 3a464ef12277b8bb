/** Permission strings of the rule-engine routes: the buttons and interfaces of the rule chain library (menu catalogue). */
export const rulePerm = {
  chainList: 'rule:chainLibrary:list',
  chainAdd: 'rule:chainLibrary:add',
  chainEdit: 'rule:chainLibrary:edit',
  chainDelete: 'rule:chainLibrary:delete',
  chainExport: 'rule:chainLibrary:export',
  chainImport: 'rule:chainLibrary:import',
  /** Switching which version runs changes what every message of the tenant goes through. */
  chainRun: 'rule:chainLibrary:run',
  /** The editor's debug panel: failures, node traces. */
  editorList: 'rule:chainEditor:list',
  /** Switching a node's debug traces on or off. */
  editorDebug: 'rule:chainEditor:debug',
  /** Replaying a message through a chain version (dry run: no side effects). */
  editorReplay: 'rule:chainEditor:replay',
} as const;
