// What each vendor calls the units under a roofline's two flat roofs: the matrix units that run
// matmuls and the vector units that run elementwise ops. The hardware table gives TPUs only the
// matrix unit's rate, so every op sits under that one roof there, an upper bound their vector unit may not reach.
const NAMES = {
  NVIDIA: { matrix: 'Tensor-core', vector: 'CUDA-core (vector)', matrixUnits: 'tensor cores', vectorUnits: 'CUDA cores (vector)' },
  AMD: { matrix: 'Matrix-core', vector: 'Vector-unit', matrixUnits: 'matrix cores', vectorUnits: 'vector units' },
  Google: { matrix: 'Matrix-unit (MXU)', vector: 'Vector-unit', matrixUnits: 'MXU', vectorUnits: 'MXU roof (the table has no vector-unit rate)' },
};

export function roofNames(vendor) {
  return NAMES[vendor] ?? { matrix: 'Matrix-unit', vector: 'Vector-unit', matrixUnits: 'matrix units', vectorUnits: 'vector units' };
}

// Points whose markers would sit on top of each other (intensity and height within `tol`, as a
// ratio on log axes) share one label, "A, B", on the first; the others get none.
// `groups`: names for whole families ({'Weight matmuls': [names]}), used when a shared label
// would list every member of one.
export function mergeCloseLabels(points, tol = 1.3, groups = {}) {
  const near = (a, b) => Math.max(a.x / b.x, b.x / a.x) < tol && Math.max(a.y / b.y, b.y / a.y) < tol;
  const owner = points.map(() => -1);
  points.forEach((p, i) => {
    if (owner[i] >= 0) return;
    owner[i] = i;
    points.forEach((q, j) => { if (j > i && owner[j] < 0 && near(p, q)) owner[j] = i; });
  });
  return points.map((p, i) => ({
    ...p,
    label: owner[i] === i ? joinNames(grouped(points.filter((_, j) => owner[j] === i).map((q) => q.label), groups)) : '',
  }));
}

// "Layer norm 1", "Layer norm 2", "Activation" -> "Layer norm 1, 2, Activation": numbered names
// with one stem share it.
export function joinNames(names) {
  const out = [];
  for (const name of names) {
    const [, stem, n] = /^(.*) (\d+)$/.exec(name) ?? [];
    const prev = out.at(-1);
    if (stem && prev?.stem === stem) prev.text += `, ${n}`;
    else out.push({ stem, text: name });
  }
  return out.map((o) => o.text).join(', ');
}

// The names with each family whose every member is among them replaced by the family's name.
function grouped(names, groups) {
  let out = [...names];
  for (const [family, members] of Object.entries(groups)) {
    if (members.length < 2 || !members.every((m) => out.includes(m))) continue;
    const at = out.indexOf(members[0]);
    out = out.filter((n) => !members.includes(n));
    out.splice(Math.min(at, out.length), 0, family);
  }
  return out;
}
