"""The course kernel's IPython profile (IPYTHONDIR points at ipython/), and the lesson of each cell id (lesson_cells.json)."""
