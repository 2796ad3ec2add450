/** A test's cost: fractions of a cent are shown, since one scenario usually costs less than one. */
export const formatCost = (usd: number): string => (usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);
