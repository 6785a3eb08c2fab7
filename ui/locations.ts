// Console: representative cities for the Durable Object location hints, for the map. Our choices, not Cloudflare
// data: Cloudflare publishes no coordinates for a hint.
export const HINT_COORDINATES: Record<string, [number, number]> = {
  wnam: [-121.89, 37.34], enam: [-77.49, 39.04], sam: [-46.63, -23.55], weur: [8.68, 50.11], eeur: [21.01, 52.23],
  apac: [103.82, 1.35], oc: [151.21, -33.87], afr: [28.05, -26.2], me: [55.27, 25.2],
};
