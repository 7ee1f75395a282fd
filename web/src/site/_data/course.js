// Everything the pages are built from: the course outline, rendered lessons, glossary and
// figure list (web/scripts/content.js reads and checks content/).
import { loadContent } from '../../../scripts/content.js';

export default async function () {
  return loadContent();
}
