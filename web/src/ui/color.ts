/**
 * Spec §9 "text colour chosen from brightness": black or white text on a background colour, by the colour's
 * relative luminance (WCAG 2.1), whichever contrasts more.
 */
export function textOn(background: string): '#000000' | '#FFFFFF' {
  const hex = background.replace('#', '');
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const channel = (i: number) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  // Contrast with white is 1.05 / (L + 0.05), with black (L + 0.05) / 0.05: white wins below L ≈ 0.179.
  return luminance > 0.179 ? '#000000' : '#FFFFFF';
}
