import { limits } from '@iot/contracts';
import { PNG_SIGNATURE } from '@iot/contracts/identity/settings.ts';

/** Spec §5: the logo is a PNG of at most 2MB. Answers the i18n key of the broken rule, or null. */
export async function checkLogo(file: File): Promise<string | null> {
  if (file.size > limits.logo.maxBytes) return 'settings.logoTooLarge';
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const isPng = file.type === limits.logo.mime && PNG_SIGNATURE.every((b, i) => head[i] === b);
  return isPng ? null : 'settings.logoNotPng';
}

/** Spec §5: the logo is shown 30 px high; scale it proportionally to that height before sending. */
export async function scaleLogo(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  if (bitmap.height === limits.logo.height) return file;
  const width = Math.max(1, Math.round((bitmap.width * limits.logo.height) / bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = limits.logo.height;
  const context = canvas.getContext('2d');
  if (!context) return file;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, limits.logo.height);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob ?? file), 'image/png'));
}
