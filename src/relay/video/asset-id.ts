/** An upstream asset id (`asset-20260327164915-cj6zh`): bounded, and safe in a query string. */
export const assetIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
