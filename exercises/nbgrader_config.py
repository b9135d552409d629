"""nbgrader configuration of the course's practice problems.

This folder is an nbgrader course directory: instructor versions of the assignments
live in source/, and release/, submitted/, autograded/ and feedback/ are generated
by nbgrader's own commands. The sixteen practice problems arrive with their own issue.
"""
c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "machines-with-memory"
c.CourseDirectory.root = "."
