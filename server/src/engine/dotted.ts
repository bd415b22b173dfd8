// Dotted names (`os.path.join`, `User.save`): the one definition of their last segment, which
// the store indexes references by and resolution compares, so the two always agree.
export function lastSegment(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}
