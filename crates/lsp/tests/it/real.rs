//! Real servers against `test-projects/`: open → error; fix → gone in the very next result;
//! break again → back.
