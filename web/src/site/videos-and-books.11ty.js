// /videos-and-books/: free courses, lectures and books (content/resources.yaml), each with
// what it is good for and the lessons it complements.
import { layout } from './_includes/layout.js';
import { lessonIndex, lessonLinks } from './_includes/links.js';
import { esc } from '../../scripts/markdown.js';

export const data = { permalink: '/videos-and-books/index.html' };

const KIND = { course: 'Course', lectures: 'Lectures', book: 'Book', guide: 'Guide', article: 'Article' };

export function render({ course }) {
  const index = lessonIndex(course.modules);
  const items = course.resources.map((r) => `<li class="resource">
  <h2 class="resource-title"><a href="${esc(r.url)}" rel="noopener">${esc(r.title)}</a></h2>
  <p class="meta"><span class="badge">${esc(KIND[r.kind])}</span> ${esc(r.by)}</p>
  <p>${esc(r.good_for)}</p>
  <p class="resource-lessons">Complements: ${lessonLinks(index, r.lessons)}</p>
</li>`).join('\n');
  const body = `<h1>Videos and books</h1>
<p class="lead">Free courses, recorded lectures and books that go further on the topics of this course, each with what it is best for.</p>
<ul class="resources">
${items}
</ul>`;
  return layout({ title: 'Videos and books · ML systems', description: 'Free courses, lectures and books on machine learning systems.', body, current: '/videos-and-books/' });
}
