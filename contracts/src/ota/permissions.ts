/** Permission strings of the OTA and configuration rollout routes: buttons and interfaces under Device management → Upgrade tasks. */
export const otaPerm = {
  list: 'device:ota:list',
  add: 'device:ota:add',
  pause: 'device:ota:pause',
  cancel: 'device:ota:cancel',
} as const;
