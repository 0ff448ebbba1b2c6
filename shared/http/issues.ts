/** One problem of a refused request, in the spec's 422 shape: `{"loc": ["body", "name"], "msg", "type"}`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
