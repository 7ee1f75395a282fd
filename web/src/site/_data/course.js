// Everything the pages are built from: the course outline, rendered lessons, glossary and
// figure list (web/build/content.js reads and checks content/).
import { loadContent } from '../../../build/content.js';

export default async function () {
  return loadContent();
}
