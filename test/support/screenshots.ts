/** Where browser suites put their screenshots (git-ignored by default; SCREENSHOTS_DIR to look at them elsewhere). */
export const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR ?? `${process.cwd()}/test-results/screens`;
